"""URLs of the context API."""
from django.urls import path

from . import context_views

urlpatterns = [
    path("context/", context_views.ContextView.as_view(), name="context"),
    path("context/answer/", context_views.ContextAnswerView.as_view(), name="context-answer"),
]
