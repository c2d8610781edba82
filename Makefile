# Set-up is idempotent: the virtualenv is made once and re-installed when pyproject.toml changes.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m arena.demo

lint: $(STAMP)
	$(BIN)/ruff check $(wildcard arena tests bench bots scripts)
	$(BIN)/python scripts/gen_protos.py --check
	$(BIN)/python bots/python/sync_protos.py --check

typecheck: $(STAMP)
	$(BIN)/mypy --strict arena

unit: $(STAMP)
	$(BIN)/python -m pytest

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python -m bench.engine
	$(BIN)/python -m bench.evaluate

clean:
	rm -rf $(VENV)
