# GPU configurator — developer entry points. `make help` lists them.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=
# pytest-xdist processes for `make test`; 0 runs the suite in this one process. One per core: the suite keeps
# both of CI's cores busy with two (the servers, workers and browsers the tests start are processes of their
# own), and a third only adds its imports and collection and more switching (2026-12-01, same machine, same
# commit: 314 s with two, 374 s with three).
# --dist loadgroup --no-loadscope-reorder hands tests out one (or one group) at a time in collection order,
# so each process keeps pytest-django's order (transactional tests after the others) and runs the browser
# tests last, as a single process does.
PYTEST_WORKERS ?= 2

.DEFAULT_GOAL := help
.PHONY: help install run test fuzz screenshots lint format bench accuracy migrate seed clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  make %-10s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml requirements/lock.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required (found %s)" % sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	@# uv (pinned in the lock) installs the lock in ~11 s where pip takes ~45 s (a clean clone, 2026-12-01);
	@# pip does it when uv cannot (no index reachable by uv). Bytecode is compiled at install: with
	@# PYTHONDONTWRITEBYTECODE set (as on our machines) every process would otherwise compile every module
	@# it imports, again (a .ci/run took 572 s of CPU without it, against 414 s with pip's compiled packages).
	$(PY) -m pip install -q -c requirements/lock.txt uv
	$(PY) -m uv pip install -q --compile-bytecode --python $(PY) -c requirements/lock.txt -e ".[dev]" || { \
	  echo "uv could not install the lock: installing it with pip"; \
	  $(PY) -m pip install -q --upgrade "pip>=24" && $(PY) -m pip install -q -c requirements/lock.txt -e ".[dev]"; }
	@touch $@

install: $(VENV)/.installed ## create .venv and install the pinned dependencies

migrate: install ## apply migrations, load the catalog and the demo users (idempotent)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_catalog
	$(PY) manage.py load_offers
	$(PY) manage.py load_services
	$(PY) manage.py cbr_rates --sample
	$(PY) manage.py seed_demo

run: migrate ## serve on http://$(HOST):$(PORT)/ (SQLite + in-process tasks unless DATABASE_URL / CELERY_BROKER_URL)
	@echo ""
	@echo "  Configurator:  http://$(HOST):$(PORT)/"
	@echo "  Admin:         http://$(HOST):$(PORT)/admin/"
	@echo "  API docs:      http://$(HOST):$(PORT)/api/v1/docs/"
	@echo "  Demo logins are listed above (admin, catalog, sales, customer)."
	@echo ""
	$(PY) manage.py runserver $(HOST):$(PORT)

# Bytecode is written during the suite even where the environment sets PYTHONDONTWRITEBYTECODE (as on our
# machines): otherwise each of its processes (pytest's, and the servers, workers and commands the tests start)
# compiles every project module it imports again, and pytest rewrites every test module's asserts again.
test: install ## run the whole test suite (PYTEST_WORKERS=2 processes; the schemathesis run at its CI size)
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --no-loadscope-reorder $(PYTEST_ARGS)

fuzz: install ## the large schemathesis run against gunicorn (FUZZ_SIZE=nightly; the suite runs the CI size)
	FUZZ_SIZE=nightly $(PY) -m pytest -p no:cacheprovider -s tests/security/test_fuzz_api.py $(PYTEST_ARGS)

screenshots: install ## the browser tests, writing every page at 1280 and 390 px to artifacts/screenshots/
	SCREENSHOTS=1 env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -p no:cacheprovider tests/e2e $(PYTEST_ARGS)

lint: install ## ruff check, ruff format --check, mypy
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy .

format: install ## apply ruff's fixes and formatting
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: install ## benchmarks, each printed next to its baseline from the same run
	$(PY) bench/run_all.py

accuracy: install ## decode-speed and training accuracy vs published measurements, next to their baselines
	$(PY) bench/accuracy.py
	$(PY) bench/training_accuracy.py
	$(PY) bench/cluster_accuracy.py

clean: ## remove the venv, the SQLite database and caches
	rm -rf $(VENV) db.sqlite3 .pytest_cache .mypy_cache .ruff_cache .test-media staticfiles
