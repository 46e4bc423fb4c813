# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Test processes run at once; the `serial` tests (a live load with timing asserted) run alone after them.
PYTEST_WORKERS ?= 3
# The files that mark a test `serial`, in the order pytest collects them: the serial run collects these, not
# the whole suite (a minute's imports on a busy machine for 8 tests); -m serial still picks the tests.
SERIAL_FILES = $(shell for d in $$(sed -n 's/^testpaths = //p' pytest.ini); do \
	grep -rl --include='test_*.py' 'mark\.serial' $$d | LC_ALL=C sort; done)

.PHONY: run test lint bench-deps clean

$(VENV)/.run-installed: requirements.txt
	@bash scripts/system-deps.sh venv
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	@touch $@

$(VENV)/.test-installed: $(VENV)/.run-installed requirements-test.txt
	$(PY) -m pip install -q -r requirements-test.txt
	@touch $@

run: $(VENV)/.run-installed
	@bash scripts/system-deps.sh run
	@echo "SteadyState: starting on http://$${LISTEN_HOST:-127.0.0.1}:$${PORT:-8000}/ (Ctrl-C stops everything)"
	$(PY) manage.py up

test: $(VENV)/.test-installed
	@bash scripts/system-deps.sh test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest -n $(PYTEST_WORKERS) --dist worksteal -m 'not serial' --durations=15
	$(VENV)/bin/pytest -m serial --durations=8 $(SERIAL_FILES)

bench-deps: $(VENV)/.test-installed
	@bash scripts/system-deps.sh bench

lint: $(VENV)/.test-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) staticfiles
