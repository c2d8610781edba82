"""The optional mypyc build of the engine's and the dealer's hot modules (arena/host/compiled.py,
scripts/build_engine.py): used only for the exact sources it was built from, and never left out
unnoticed when asked for."""

from __future__ import annotations

import ast
import importlib
import json
import os
from pathlib import Path

from arena.host.compiled import (
    ARENA_DIR,
    BUILD_DIR,
    MANIFEST,
    MODULES,
    PURE_ENV,
    SOURCE_PACKAGES,
    SUFFIX,
    build_is_fresh,
    compiled_modules,
    source_digests,
)

# Set by `make test`'s compiled pass: the engine tests must then run on the build.
EXPECT_COMPILED_ENV = "ARENA_ENGINE_EXPECT_COMPILED"


def test_a_build_serves_only_the_sources_and_interpreter_it_was_built_for(tmp_path: Path) -> None:
    sources = source_digests()
    manifest = {"suffix": SUFFIX, "modules": list(MODULES), "sources": sources}
    path = tmp_path / MANIFEST
    path.write_text(json.dumps(manifest))
    assert build_is_fresh(tmp_path)
    assert {"engine/state.py", "match/live.py", "server/wire.py", "v1/arena_pb2.pyi"} <= set(sources)
    changes: list[tuple[str, object]] = [
        ("suffix", ".cpython-39-x86_64-linux-gnu.so"), ("modules", ["arena.engine.state"])]
    for name in ("engine/state.py", "match/feed.py", "match/messages.py", "server/wire.py"):
        changes.append(("sources", {**sources, name: "0" * 64}))
    changes.append(("sources", {**sources, "match/new_module.py": "0" * 64}))
    for key, value in changes:
        path.write_text(json.dumps({**manifest, key: value}))
        assert not build_is_fresh(tmp_path), (key, value)
    path.write_text("{not json")
    assert not build_is_fresh(tmp_path)
    assert not build_is_fresh(tmp_path / "missing")


def test_the_hot_modules_run_compiled_exactly_when_a_fresh_build_is_allowed() -> None:
    """The engine's and the dealer's (README "Dealer"): all of them or none."""
    for module in MODULES:
        importlib.import_module(module)
    use_build = not os.environ.get(PURE_ENV) and build_is_fresh(BUILD_DIR)
    expected = tuple(sorted(MODULES)) if use_build else ()
    assert compiled_modules() == expected
    assert {"arena.match.live", "arena.match.feed", "arena.server.wire"} <= set(MODULES)
    if os.environ.get(EXPECT_COMPILED_ENV):
        assert use_build, f"no fresh build in {BUILD_DIR}: run scripts/build_engine.py"


def test_the_compiled_modules_import_only_sources_the_build_is_checked_against() -> None:
    """mypyc bakes in the types (and final constants) of what a compiled module imports, so
    every arena module they import must be one whose source the freshness check hashes."""
    for name in MODULES:
        path = ARENA_DIR.joinpath(*name.split(".")[1:]).with_suffix(".py")
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(
                    "arena."):
                assert node.module.split(".")[1] in SOURCE_PACKAGES, (name, node.module)
