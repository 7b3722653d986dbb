# Two commands for a fresh clone: `make run` serves the product on the embedded defaults,
# `make test` sets everything up and runs the whole test suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test lint worker beat bench clean-data

$(VENV)/.installed: pyproject.toml setup.py agentmemory/native/e5q.c
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py check
	$(PY) manage.py runserver $(HOST):$(PORT)

# The main suite, then the foreign-host suite: agentmemory installed into a second, typical Django
# site (its own settings module, its own DRF API) exactly as README.md says.
test: install
	$(PY) -m pytest
	$(PY) -m pytest --ds=tests.foreign_host.settings tests/foreign_host

lint: install
	$(VENV)/bin/ruff check agentmemory project tests

worker: install
	$(VENV)/bin/celery -A project worker -l info --concurrency 1

beat: install
	$(VENV)/bin/celery -A project beat -l info --scheduler django_celery_beat.schedulers:DatabaseScheduler

clean-data:
	$(PY) -m agentmemory.embedded stop --data-dir .agentmemory || true
	rm -rf .agentmemory
