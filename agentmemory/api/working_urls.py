"""URLs of the working-memory API (sessions/ and their turns, end and extraction)."""
from django.urls import path

from . import working_views as views

urlpatterns: list = [
    path("sessions/", views.SessionListCreateView.as_view(), name="session-list"),
    path("sessions/<str:session_id>/", views.SessionDetailView.as_view(), name="session-detail"),
    path("sessions/<str:session_id>/turns/", views.TurnListCreateView.as_view(), name="session-turns"),
    path("sessions/<str:session_id>/end/", views.SessionEndView.as_view(), name="session-end"),
    path("sessions/<str:session_id>/extraction/", views.SessionExtractionView.as_view(), name="session-extraction"),
]
