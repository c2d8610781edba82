# Set-up is idempotent: the virtualenv is made once and re-installed when pyproject.toml changes.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# buf (lint and breaking-change checks of the wire contract) from npm, its version pinned in
# tools/buf/package.json (npm install, not npm ci: ci trips over buf's per-platform packages).
BUF_DIR := tools/buf
BUF := $(BUF_DIR)/node_modules/.bin/buf
RELEASED_CONTRACT := protos/released/arena-v1.binpb

.PHONY: demo test lint typecheck unit unit-plain bench clean contract-release

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

$(BUF): $(BUF_DIR)/package.json $(BUF_DIR)/package-lock.json
	cd $(BUF_DIR) && npm install --no-audit --no-fund --loglevel=error
	touch $(BUF)

demo: $(STAMP)
	$(BIN)/python -m arena.demo

lint: $(STAMP) $(BUF)
	$(BIN)/ruff check $(wildcard arena tests bench bots scripts)
	$(BUF) lint
	$(BUF) breaking --against $(RELEASED_CONTRACT)
	$(BIN)/python scripts/gen_protos.py --check
	$(BIN)/python bots/python/sync_protos.py --check
	$(BIN)/mkdocs build --strict --quiet

typecheck: $(STAMP)
	$(BIN)/mypy --strict arena

# The tests run on TEST_WORKERS processes (pytest-xdist; `make test TEST_WORKERS=0` runs them in
# this one). Each test file stays on one worker, so a file's shared fixtures (a live league, a
# browser, a PostgreSQL cluster) start once per worker that runs it.
TEST_WORKERS ?= auto
# The suite starts hundreds of Python processes (dealers, workers, bots); with
# PYTHONDONTWRITEBYTECODE set (as on this project's machines) each compiled arena from source,
# about 0.5 s of CPU apiece. Their bytecode goes to one cache outside the source tree instead
# (a bot package's folder stays as it is).
PYCACHE := PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/.pycache
PYTEST := $(PYCACHE) $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

unit: $(STAMP)
	$(PYTEST)

# The server and league tests once more with every fast path off (arena/host/fastpaths.py), save
# those marked no_dealer: they never run the dealer, so the switch changes nothing they run.
unit-plain: $(STAMP)
	ARENA_FAST_PATHS=off $(PYTEST) -m "not no_dealer" tests/server tests/league

# The checks side by side (both CPU-bound, none timed), then the tests.
test: $(STAMP) $(BUF)
	$(MAKE) --no-print-directory --output-sync=target -j2 lint typecheck
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory unit-plain

bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python -m bench.engine
	$(BIN)/python -m bench.evaluate

# When a protocol version is released: the contract as it is now becomes the baseline.
contract-release: $(BUF)
	$(BUF) build --exclude-source-info -o $(RELEASED_CONTRACT)

clean:
	rm -rf $(VENV) $(BUF_DIR)/node_modules
