"""Read-only audit screen, and the audit context of every operator's write in the admin."""
from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _

from ..audit import audit_context, operator_actor
from ..models import AuditEvent


def as_operator(request, reason: str = "") -> audit_context:
    """Writes inside are attributed to the admin's logged-in operator (``admin:<username>``)."""
    return audit_context(operator_actor(request.user), reason)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Base for screens that only show history."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ActorFilter(admin.SimpleListFilter):
    """Who acted, by kind (api_key:, admin:, staff:, user:, task:, command:, system) or one actor exactly."""

    title, parameter_name = _("actor"), "actor"
    KINDS = ("api_key", "admin", "staff", "user", "task", "command")

    def lookups(self, request, model_admin):
        return [(f"{k}:", f"{k}: ...") for k in self.KINDS] + [("system", "system")]

    def queryset(self, request, queryset):
        value = self.value()
        if not value:
            return queryset
        return queryset.filter(actor__startswith=value) if value.endswith(":") else queryset.filter(actor=value)


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "action", "object_type", "object_id", "user_id", "actor", "reason"]
    list_filter = [ActorFilter, "action", "object_type"]
    search_fields = ["object_id", "=user_id", "actor", "reason"]
    date_hierarchy = "created_at"
    change_list_template = "agentmemory/admin/audit_change_list.html"

    def get_urls(self):
        own = [path("jobs/", self.admin_site.admin_view(self.jobs_view), name="agentmemory_jobs")]
        return own + super().get_urls()

    def jobs_view(self, request):
        """agentmemory's periodic jobs: schedule, last run, and what each changed (its audit events)."""
        if not request.user.has_perm("agentmemory.view_auditevent"):
            raise PermissionDenied
        return TemplateResponse(request, "agentmemory/admin/jobs.html", {
            **self.admin_site.each_context(request), "title": _("Scheduled jobs"), "jobs": scheduled_jobs(),
            "opts": self.model._meta})


def schedule_words(schedule) -> str:
    """A Celery schedule as an operator reads it: "every day at 03:40 UTC", "every 10 minutes"."""
    import datetime as dt

    every = getattr(schedule, "run_every", schedule)
    if isinstance(every, int | float):
        every = dt.timedelta(seconds=every)
    if isinstance(every, dt.timedelta):
        seconds = int(every.total_seconds())
        for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
            if seconds >= size and seconds % size == 0:
                n = seconds // size
                return f"every {unit}" if n == 1 else f"every {n} {unit}s"
        return f"every {seconds} seconds"
    fields = [str(getattr(schedule, f"_orig_{name}", "")) for name in
              ("minute", "hour", "day_of_month", "month_of_year", "day_of_week")]
    if not all(fields):
        return " ".join(str(schedule).split())
    minute, hour, day, month, weekday = fields
    from django.conf import settings

    zone = str(getattr(schedule, "tz", None) or getattr(settings, "CELERY_TIMEZONE", None) or "UTC")
    if (day, month) == ("*", "*") and minute.isdigit() and hour.isdigit():
        when = f"at {int(hour):02d}:{int(minute):02d} {zone}"
        if weekday == "*":
            return f"every day {when}"
        return f"on weekdays {weekday} {when}"
    if (hour, day, month, weekday) == ("*", "*", "*", "*"):
        if minute.isdigit():
            return f"every hour at minute {int(minute)}"
        if minute.startswith("*/") and minute[2:].isdigit():
            return f"every {int(minute[2:])} minutes"
    return f"cron {minute} {hour} {day} {month} {weekday} ({zone})"


def scheduled_jobs() -> list[dict]:
    """Each job of BEAT_SCHEDULE with its django-celery-beat row (when installed) and its audit trail."""
    from django.apps import apps
    from django.db.models import Count, Max

    from ..schedules import BEAT_SCHEDULE

    rows = {}
    if apps.is_installed("django_celery_beat"):
        from django_celery_beat.models import PeriodicTask

        rows = {t.name: t for t in PeriodicTask.objects.filter(name__in=BEAT_SCHEDULE)}
    jobs = []
    for name, entry in BEAT_SCHEDULE.items():
        actor = f"task:{entry['task']}"
        changed = AuditEvent.objects.filter(actor=actor).aggregate(n=Count("id"), last=Max("created_at"))
        row = rows.get(name)
        jobs.append({
            "name": name, "task": entry["task"], "schedule": schedule_words(row.schedule if row else entry["schedule"]),
            "enabled": row.enabled if row else None, "last_run_at": row.last_run_at if row else None,
            "total_run_count": row.total_run_count if row else None,
            "row_url": reverse("admin:django_celery_beat_periodictask_change", args=[row.pk]) if row else "",
            "changes": changed["n"], "last_change": changed["last"], "actor": actor,
        })
    return jobs
