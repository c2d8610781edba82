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

.PHONY: demo test lint typecheck unit engine-build engine-compiled bench clean contract-release

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
PYTEST := $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

unit: $(STAMP)
	ARENA_ENGINE_PURE=1 $(PYTEST)

# The engine's and the dealer's hot modules compiled with mypyc (optional: scripts/build_engine.py;
# they fall back to pure Python without a fresh build; arena/host/compiled.py). The compiled
# modules pass the same engine, table and transport tests, and the event log's byte-for-byte
# tests (the messages are native classes compiled). Left out: the evaluator's own tests (it is
# not compiled); `fast_init`'s (test_fastinit.py: only interpreted messages are built by it); the
# server tests that mostly time bot processes and sandboxes; the two event log tests that build a
# notice around a stand-in payload of no message type, which a compiled `Notice` rejects.
ENGINE_COMPILED_TESTS := tests/test_layers.py $(filter-out %/test_evaluate.py %/test_equity.py \
	%/test_frozen.py,$(wildcard tests/engine/test_*.py)) \
	$(filter-out %/test_fastinit.py,$(wildcard tests/match/test_*.py)) \
	$(filter-out %/test_trust.py %/test_node_bot.py %/test_sdk_reconnect.py \
	%/test_peer_tls.py,$(wildcard tests/server/test_*.py)) tests/league/test_trust_league.py \
	tests/storage/test_eventlog_json.py tests/storage/test_eventlog_hold.py \
	tests/storage/test_replay_rules.py
ENGINE_COMPILED_DESELECT := \
	--deselect tests/storage/test_eventlog_json.py::test_the_fast_event_json_is_byte_for_byte_the_plain_walks \
	--deselect tests/storage/test_eventlog_json.py::test_a_real_event_takes_the_fast_way_and_a_tiny_float_the_plain_one

engine-build: $(STAMP)
	$(BIN)/python scripts/build_engine.py

engine-compiled: engine-build
	ARENA_ENGINE_EXPECT_COMPILED=1 $(PYTEST) $(ENGINE_COMPILED_TESTS) $(ENGINE_COMPILED_DESELECT)

# The checks and the mypyc build side by side (all CPU-bound, none timed), then the tests.
test: $(STAMP) $(BUF)
	$(MAKE) --no-print-directory --output-sync=target -j3 lint typecheck engine-build
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory engine-compiled

bench: $(STAMP) engine-build
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python -m bench.engine
	$(BIN)/python -m bench.evaluate

# When a protocol version is released: the contract as it is now becomes the baseline.
contract-release: $(BUF)
	$(BUF) build --exclude-source-info -o $(RELEASED_CONTRACT)

clean:
	rm -rf $(VENV) $(BUF_DIR)/node_modules build/mypyc
