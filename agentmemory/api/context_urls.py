"""URLs of the context API."""
from django.urls import path

from . import context_views

urlpatterns = [
    path("context/", context_views.ContextView.as_view(), name="context"),
    path("context/answer/", context_views.ContextAnswerView.as_view(), name="context-answer"),
    path("contexts/", context_views.ContextRecordListView.as_view(), name="context-record-list"),
    path("contexts/usage/", context_views.TokenUsageView.as_view(), name="context-usage"),
    path("contexts/<int:pk>/", context_views.ContextRecordDetailView.as_view(), name="context-record-detail"),
    path("contexts/<int:pk>/feedback/", context_views.ContextFeedbackView.as_view(), name="context-feedback"),
]
