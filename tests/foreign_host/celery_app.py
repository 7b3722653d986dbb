"""The host's Celery app, configured from its settings as Celery's Django guide says."""
from celery import Celery

app = Celery("foreign_host")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
