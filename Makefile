# streamer: the two commands of the quick start are `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO := fixtures/demo
# make bench BENCH_ARGS="--sizes 300MB,3GB" (see benchmarks/README.md)
BENCH_ARGS ?=

.PHONY: venv demo test lint typecheck contracts unit bench lock clean

venv: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

demo: venv
	@echo "== streamer evidence: the evidence context of the demo session (window 1, five lanes)"
	$(BIN)/streamer evidence --config $(DEMO)/streamer.yaml --source $(DEMO)/session.jsonl \
		--lanes-dir $(DEMO)/lanes --output - | $(BIN)/python -m json.tool --indent 1

test: venv lint typecheck contracts unit

lint: venv
	$(BIN)/ruff check streamer tests benchmarks
	$(BIN)/ruff format --check streamer tests benchmarks

typecheck: venv
	$(BIN)/mypy

contracts: venv
	$(BIN)/lint-imports

unit: venv
	$(BIN)/pytest

bench: venv
	$(BIN)/python -m benchmarks.run $(BENCH_ARGS)

lock: venv
	$(BIN)/python -m pip freeze --exclude-editable | sed '/^-e /d' > requirements.lock.new
	(echo "# Every package of the development environment (runtime, test, lint), pinned: make venv installs exactly these."; \
	 echo "# Regenerate with: make lock"; cat requirements.lock.new) > requirements.lock; rm requirements.lock.new

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build *.egg-info
