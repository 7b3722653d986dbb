from django.apps import AppConfig


class NotesConfig(AppConfig):
    name = "tests.foreign_host.notes"
    label = "notes"
    default_auto_field = "django.db.models.BigAutoField"
