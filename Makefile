# Every target creates or reuses the virtual environment in .venv first, so a
# fresh clone needs only `make demo` or `make test`.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PROTOS := $(wildcard proto/arena/wire/v1/*.proto)
# The JavaScript example bot's packages (engines/js), from its lock file.
JS_STAMP := engines/js/node_modules/.installed

.PHONY: help setup demo test test-fast lint proto proto-check bench paper paper-quick strength \
	strength-quick signal-storm clean

help:
	@echo "make demo         set up, then play a demonstration match"
	@echo "make test         set up, then run the test suite"
	@echo "make test-fast    set up, then run the tests that start no process (under a minute)"
	@echo "make lint         ruff and mypy over arena/"
	@echo "make bench        print the speed figures"
	@echo "make signal-storm stop every long-running command COUNT times (500) at random moments"
	@echo "make paper        Di Palma & Lanzi's Scopone table on the arena (2 h; docs/paper.md)"
	@echo "make paper-quick  the same protocol with random and greedy (a minute)"
	@echo "make strength     Elo of the engines at equal think time, Scopa and Scopone"
	@echo "make strength-quick  the same with random and greedy (a minute)"
	@echo "make proto        regenerate arena/wire/v1 from proto/"
	@echo "make proto-check  fail if the committed generated code is stale"
	@echo "make clean        remove the virtual environment and caches"

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

$(JS_STAMP): engines/js/package.json engines/js/package-lock.json
	cd engines/js && npm ci --no-audit --no-fund --loglevel=error
	touch $(JS_STAMP)

demo: $(STAMP) $(JS_STAMP)
	$(BIN)/arena demo

test: $(STAMP) $(JS_STAMP)
	$(BIN)/python -m pytest -q

# The pure tests: no bot, server, browser or other process, nothing slow; one
# worker per CPU (pytest-xdist), as none of them shares a file or a port.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -n auto -m "not process and not browser and not slow"

lint: $(STAMP)
	$(BIN)/ruff check arena benchmarks engines tests
	$(BIN)/ruff format --check arena benchmarks engines tests
	$(BIN)/mypy

# Generated code is committed so that `pip install` from a checkout works
# without grpcio-tools; CI regenerates it and fails on any difference.
proto: $(STAMP)
	$(BIN)/python -m grpc_tools.protoc -I proto --python_out=. --pyi_out=. \
		--grpc_python_out=. $(PROTOS)

proto-check: $(STAMP)
	@tmp=$$(mktemp -d) && \
	$(BIN)/python -m grpc_tools.protoc -I proto --python_out=$$tmp --pyi_out=$$tmp \
		--grpc_python_out=$$tmp $(PROTOS) && \
	diff -r -x __init__.py -x __pycache__ $$tmp/arena/wire/v1 arena/wire/v1 && \
	rm -rf $$tmp && echo "generated code is up to date"

# Outside the test suite: SIGINT and SIGTERM to arena match, tournament,
# gauntlet, sprt, serve and web at random moments, with two CPU hogs running;
# prints the count of wrong outcomes, which must be 0 (tests/cli/signal_storm.py).
COUNT ?= 500
signal-storm: $(STAMP)
	$(BIN)/python -m tests.cli.signal_storm --count $(COUNT)

bench: $(STAMP)
	$(BIN)/python -m benchmarks.bench_rules
	@echo
	$(BIN)/python -m benchmarks.bench_referee
	@echo
	$(BIN)/python -m benchmarks.bench_search
	@echo
	$(BIN)/python -m benchmarks.bench_ismcts
	@echo
	$(BIN)/python -m benchmarks.bench_analysis
	@echo
	$(BIN)/python -m benchmarks.bench_tournament
	@echo
	$(BIN)/python -m benchmarks.bench_load
	@echo
	$(BIN)/python -m benchmarks.bench_cluster
	@echo
	$(BIN)/python -m benchmarks.bench_sandbox
	@echo
	$(BIN)/python -m benchmarks.bench_standings
	@echo
	$(BIN)/python -m benchmarks.bench_streams
	@echo
	$(BIN)/python -m benchmarks.bench_web
	@echo
	$(BIN)/python -m benchmarks.bench_ladder

# ARGS=... adds options, e.g. make paper ARGS="--deep --iterations 0.5".
paper: $(STAMP)
	$(BIN)/python -m benchmarks.paper --cluster local $(ARGS)

paper-quick: $(STAMP)
	$(BIN)/python -m benchmarks.paper --players random,greedy --decks 100 \
		--output out/paper-quick $(ARGS)

strength: $(STAMP)
	$(BIN)/python -m benchmarks.strength --cluster local $(ARGS)

strength-quick: $(STAMP)
	$(BIN)/python -m benchmarks.strength --players random,greedy --sets 50 \
		--output out/strength-quick $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis engines/js/node_modules
