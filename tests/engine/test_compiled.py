"""The optional mypyc build of the engine (arena/host/compiled.py, scripts/build_engine.py):
used only for the exact sources it was built from, and never left out unnoticed when asked for."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

from arena.host.compiled import (
    BUILD_DIR,
    COMPILED,
    MANIFEST,
    PURE_ENV,
    SUFFIX,
    build_is_fresh,
    compiled_modules,
    source_digests,
)

# Set by `make test`'s compiled pass: the engine tests must then run on the build.
EXPECT_COMPILED_ENV = "ARENA_ENGINE_EXPECT_COMPILED"


def test_a_build_serves_only_the_sources_and_interpreter_it_was_built_for(tmp_path: Path) -> None:
    manifest = {"suffix": SUFFIX, "modules": list(COMPILED), "sources": source_digests()}
    path = tmp_path / MANIFEST
    path.write_text(json.dumps(manifest))
    assert build_is_fresh(tmp_path)
    edited = {**manifest["sources"], "state.py": "0" * 64}  # type: ignore[dict-item]
    for key, value in (("sources", edited), ("suffix", ".cpython-39-x86_64-linux-gnu.so"),
                       ("modules", ["state"])):
        path.write_text(json.dumps({**manifest, key: value}))
        assert not build_is_fresh(tmp_path), key
    path.write_text("{not json")
    assert not build_is_fresh(tmp_path)
    assert not build_is_fresh(tmp_path / "missing")


def test_the_engine_runs_compiled_exactly_when_a_fresh_build_is_allowed() -> None:
    for module in COMPILED:
        importlib.import_module(f"arena.engine.{module}")
    use_build = not os.environ.get(PURE_ENV) and build_is_fresh(BUILD_DIR)
    expected = tuple(sorted(f"arena.engine.{m}" for m in COMPILED)) if use_build else ()
    assert compiled_modules() == expected
    if os.environ.get(EXPECT_COMPILED_ENV):
        assert use_build, f"no fresh build in {BUILD_DIR}: run scripts/build_engine.py"
