"""The rules engine is pure: it imports no transport, concurrency, metrics or network code."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1] / "arena" / "engine"
FORBIDDEN = ("grpc", "trio", "prometheus_client", "socket", "asyncio", "sqlite3", "arena.server",
             "arena.match", "arena.storage", "arena.metrics", "arena.v1")


def test_importing_the_engine_loads_no_io_modules() -> None:
    """STYLE.md layers: importing every engine module loads no grpc, trio, prometheus or socket."""
    modules = sorted(f"arena.engine.{p.stem}" for p in ENGINE.glob("*.py") if p.stem != "__init__")
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r} or "
        f"any(m == f or m.startswith(f + '.') for f in {FORBIDDEN!r}))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engine import pulled in: {out.stdout.strip()}"


def test_engine_sources_import_only_stdlib_and_engine() -> None:
    """No engine module names a module of a layer above it, even lazily inside a function."""
    allowed_top = set(sys.stdlib_module_names) | {"arena"}
    for path in ENGINE.glob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] in allowed_top, f"{path.name} imports {name}"
                if name.startswith("arena"):
                    assert name == "arena" or name.startswith("arena.engine"), (
                        f"{path.name} imports {name} from a layer above the engine")
                assert name.split(".")[0] not in ("socket", "asyncio", "sqlite3", "time"), (
                    f"{path.name} imports {name}: the engine has no I/O and no clocks")
