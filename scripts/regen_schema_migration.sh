#!/usr/bin/env bash
# Development only (until the first release): regenerate 0002_schema.py from the current models.
# Several people edit models at once, so this holds a lock while it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
exec 9>/tmp/agentmemory-regen.lock
flock 9
rm -f agentmemory/migrations/0002_schema.py
.venv/bin/python manage.py makemigrations agentmemory --name schema
