"""A warning banner on the lists of asynchronous jobs when work has waited past BACKLOG_WARN_SECONDS."""
from __future__ import annotations

from django.contrib import messages
from django.utils.translation import gettext as _

from ..backlog import backlog


class BacklogWarningMixin:
    """Adds the backlog's warnings (agentmemory/backlog.py, database only) to a changelist."""

    def changelist_view(self, request, extra_context=None):
        for warning in backlog(queues=False)["warnings"]:
            self.message_user(request, _("Backlog: %(warning)s") % {"warning": warning}, messages.WARNING)
        return super().changelist_view(request, extra_context)
