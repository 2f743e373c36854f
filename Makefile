# streamer: the two commands of the quick start are `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed
# The real model server of tests/test_model_server.py (llama-cpp-python, SmolLM2-135M),
# pinned apart from requirements.lock: pip builds llama-cpp-python from source where it has
# no wheel (cmake, a C++ compiler; 27 min on the shared 2-core machine, cached by pip after).
# Built for the x86-64 AVX2 baseline (GGML_NATIVE=OFF; CMAKE_ARGS overrides): a native build
# on a virtual machine that reports AMX but does not enable it died at its first answer
# (SIGILL on tilezero in ggml's AMX matrix product).
MODEL_STAMP := $(VENV)/.model-server-installed
MODEL_REQUIREMENTS := requirements-model-server.txt
MODEL_EXCLUDES := $(shell sed -n 's/^\([A-Za-z0-9_.-]*\)==.*/--exclude \1/p' $(MODEL_REQUIREMENTS))
DEMO := fixtures/demo
# make bench: every benchmark at its default size (see benchmarks/README.md); it also installs the
# benchmark-only peers (benchmarks/requirements.txt: polars, DuckDB) into the venv.
# A quick check: make bench BENCH_SIZE=30MB (every benchmark at 30 MB, one run each).
# BENCH_ARGS goes to the evidence harness (benchmarks/run.py), e.g. BENCH_ARGS="--sizes 300MB,3GB".
BENCH_SIZE ?=
BENCH_ARGS ?=
BENCH_EACH := $(if $(BENCH_SIZE),--size $(BENCH_SIZE) --repeat 1,)
BENCH_HARNESS := $(if $(BENCH_SIZE),--sizes $(BENCH_SIZE),)

.PHONY: venv demo test lint typecheck contracts unit bench docs lock clean model-server

venv: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	# An editable install compiles nothing, and a shell with PYTHONDONTWRITEBYTECODE set
	# would compile streamer's modules again at every start: compiled once here.
	$(BIN)/python -m compileall -q streamer
	touch $(STAMP)

# The demo starts from a transcript: import it (into the ignored build/), chunk it,
# publish its evidence; then the demo session: its candidates normalized, bundled and
# validated, and its evidence; last, the report of its bundle.
IMPORT := fixtures/import
DEMO_OUT := build/demo

demo: venv
	@mkdir -p $(DEMO_OUT)
	@echo "== streamer import: a WebVTT transcript ($(IMPORT)/bridge.vtt) as a source document"
	$(BIN)/streamer import webvtt $(IMPORT)/bridge.vtt --output $(DEMO_OUT)/bridge.jsonl
	@cat $(DEMO_OUT)/bridge.jsonl
	@echo "== streamer chunk: its extraction chunks (4 units each, 1 shared)"
	$(BIN)/streamer chunk --config $(IMPORT)/streamer.yaml --source $(DEMO_OUT)/bridge.jsonl
	@echo "== streamer evidence: the imported transcript, cited by two lanes ($(IMPORT)/lanes, window 0)"
	$(BIN)/streamer evidence --config $(IMPORT)/streamer.yaml --source $(DEMO_OUT)/bridge.jsonl \
		--lanes-dir $(IMPORT)/lanes --output - | $(BIN)/python -m json.tool --indent 1
	@echo "== streamer extract: the spell casts of the demo session by the built-in rules (no model);"
	@echo "   the other lanes keep the hand-written candidates of $(DEMO)/candidates"
	rm -rf $(DEMO_OUT)/candidates $(DEMO_OUT)/lanes $(DEMO_OUT)/bundle
	mkdir -p $(DEMO_OUT)/candidates && cp $(DEMO)/candidates/*.jsonl $(DEMO_OUT)/candidates/
	$(BIN)/streamer extract --config $(DEMO)/streamer.yaml --source $(DEMO)/session.jsonl \
		--output-dir $(DEMO_OUT)/candidates --glossary $(DEMO)/campaign.yaml --lane spells --no-cache
	@cat $(DEMO_OUT)/candidates/spells.jsonl
	@echo "== streamer normalize: the candidates of the demo session to lane outputs"
	$(BIN)/streamer normalize --config $(DEMO)/streamer.yaml --source $(DEMO)/session.jsonl \
		--candidates-dir $(DEMO_OUT)/candidates --glossary $(DEMO)/campaign.yaml --output-dir $(DEMO_OUT)/lanes
	@cat $(DEMO_OUT)/lanes/rejections.jsonl
	@echo "== streamer bundle + validate: the normalized lanes published and checked"
	$(BIN)/streamer bundle --config $(DEMO)/streamer.yaml --source $(DEMO)/session.jsonl \
		--lanes-dir $(DEMO_OUT)/lanes --output $(DEMO_OUT)/bundle
	$(BIN)/streamer validate $(DEMO_OUT)/bundle
	@echo "== streamer evidence: the evidence context of the demo session (window 1, five lanes)"
	$(BIN)/streamer evidence --config $(DEMO)/streamer.yaml --source $(DEMO)/session.jsonl \
		--lanes-dir $(DEMO)/lanes --output - | $(BIN)/python -m json.tool --indent 1
	@echo "== streamer report: the demo bundle as one HTML page; open $(DEMO_OUT)/report.html in a browser"
	$(BIN)/streamer report $(DEMO_OUT)/bundle --output $(DEMO_OUT)/report.html

test: venv model-server lint typecheck contracts unit

# Installed for `make test` only (never `make venv` or `make demo`). When it cannot be
# installed, one line says so and the real-server tests skip; under CI (CI=true) it fails.
model-server: $(MODEL_STAMP)

$(MODEL_STAMP): $(STAMP) $(MODEL_REQUIREMENTS)
	@echo "== the model server of the real-server tests ($(MODEL_REQUIREMENTS)); a first install builds llama.cpp"
	@if CMAKE_ARGS="$${CMAKE_ARGS:--DGGML_NATIVE=OFF}" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(BIN)/python -m pip install --quiet --disable-pip-version-check \
		--no-deps -r $(MODEL_REQUIREMENTS); then \
		touch $(MODEL_STAMP); \
	elif [ "$$CI" = true ]; then \
		echo "streamer: error: the model server could not be installed, and CI must run the real-server tests"; exit 1; \
	else \
		echo "streamer: the model server could not be installed: the real-server tests will be skipped"; \
	fi

lint: venv
	$(BIN)/ruff check streamer tests benchmarks docs/examples
	$(BIN)/ruff format --check streamer tests benchmarks docs/examples

typecheck: venv
	$(BIN)/mypy

contracts: venv
	$(BIN)/lint-imports

# The tests in PYTEST_WORKERS processes (pytest-xdist), each test module in one of them (its
# module fixtures made once). PYTEST_WORKERS=0 runs them in this process alone.
PYTEST_WORKERS ?= 2

unit: venv
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadscope

# The command reference, from the real --help of every command (tests/test_command_reference.py).
docs: venv
	$(BIN)/python -m streamer.cli.reference docs/commands.md

$(BENCH_STAMP): $(STAMP) benchmarks/requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r benchmarks/requirements.txt
	touch $(BENCH_STAMP)

bench: venv $(BENCH_STAMP)
	$(BIN)/python -m compileall -q streamer benchmarks  # as an install would: no compiling in the timings
	$(BIN)/python -m benchmarks.run $(BENCH_HARNESS) $(BENCH_ARGS)
	$(BIN)/python -m benchmarks.import_bench $(BENCH_EACH)
	$(BIN)/python -m benchmarks.run_bench $(BENCH_EACH)
	$(BIN)/python -m benchmarks.jobs_bench $(BENCH_EACH)
	$(BIN)/python -m benchmarks.rules_bench $(BENCH_EACH)
	$(BIN)/python -m benchmarks.validate_bench $(BENCH_EACH)
	$(BIN)/python -m benchmarks.startup_bench
	$(BIN)/python -m benchmarks.batch_bench
	$(BIN)/python -m benchmarks.campaign_bench

lock: venv
	$(BIN)/python -m pip freeze --exclude-editable $(MODEL_EXCLUDES) | sed '/^-e /d' > requirements.lock.new
	(echo "# Every package of the development environment (runtime, test, lint), pinned: make venv installs exactly these."; \
	 echo "# Regenerate with: make lock"; cat requirements.lock.new) > requirements.lock; rm requirements.lock.new

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build *.egg-info
