"""URLs of the end user's page (HTML, under the host's login). Mount them apart from the JSON API:

    path("memory/", include("agentmemory.pages.urls"))
"""
from django.urls import path

from . import views

app_name = "agentmemory_pages"

urlpatterns = [
    path("", views.my_page, name="remembered-me"),
    path("<str:user_id>/", views.remembered, name="remembered"),
    path("<str:user_id>/export/", views.export, name="remembered-export"),
    path("<str:user_id>/forget/", views.forget, name="remembered-forget"),
    path("<str:user_id>/<int:memory_id>/correct/", views.correct, name="remembered-correct"),
    path("<str:user_id>/<int:memory_id>/delete/", views.delete, name="remembered-delete"),
]
