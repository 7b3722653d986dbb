# Two commands for a fresh clone: `make run` serves the product on the embedded defaults,
# `make test` sets everything up and runs the whole test suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install browser services run test lint messages worker beat bench clean-data

$(VENV)/.installed: pyproject.toml setup.py agentmemory/backends/embeddings/native/e5q.c agentmemory/text/_segment.c
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

# Debian's Chromium and ChromeDriver for the browser tests; installed with apt when missing and root.
# A Chinese font too, so the screenshots of the zh-hans pages show characters, not boxes.
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null \
		&& { ! command -v fc-list >/dev/null || fc-list :lang=zh | grep -q .; }; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing chromium, chromium-driver and a Chinese font (apt) for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver \
			fonts-wqy-microhei >/dev/null; \
	else echo "chromium/chromedriver missing and not root: the browser tests will be skipped"; fi

# PgBouncer for the pooling tests (transaction mode in front of the embedded PostgreSQL); apt when missing.
services:
	@if command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing pgbouncer (apt) for the pooling tests"; \
		{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null 2>&1 \
		  || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null; }; }; \
	else echo "pgbouncer missing and not root: the PgBouncer test will be skipped"; fi

# The web server, a Celery worker and beat; a bundled Redis is the broker unless CELERY_BROKER_URL is set.
run: install
	$(PY) -m project.serve --host $(HOST) --port $(PORT)

# The main suite, then the foreign-host suite: agentmemory installed into a second, typical Django
# site (its own settings module, its own DRF API) exactly as README.md says.
test: install browser services
	$(PY) -m pytest
	$(PY) -m pytest --ds=tests.foreign_host.settings tests/foreign_host
	$(PY) -m pytest --ds=tests.foreign_host.email_settings tests/foreign_host/email_login

lint: install
	$(VENV)/bin/ruff check agentmemory project tests benchmarks

# The message catalogues (agentmemory/locale): gather the strings, then compile. The .mo files are committed
# and shipped in the package, so installing needs no gettext tools; only this target does (msgfmt).
messages: install
	cd agentmemory && DJANGO_SETTINGS_MODULE=project.settings PYTHONPATH=.. ../$(VENV)/bin/django-admin \
		makemessages -l zh_Hans -l en --no-obsolete
	cd agentmemory && DJANGO_SETTINGS_MODULE=project.settings PYTHONPATH=.. ../$(VENV)/bin/django-admin compilemessages

worker: install
	$(VENV)/bin/celery -A project worker -l info --concurrency 1

beat: install
	$(VENV)/bin/celery -A project beat -l info --scheduler django_celery_beat.schedulers:DatabaseScheduler

clean-data:
	$(PY) -m agentmemory.embedded stop --data-dir .agentmemory || true
	rm -rf .agentmemory
