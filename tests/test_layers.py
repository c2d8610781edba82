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
    """The README's layers: importing every engine module loads no grpc, trio, prometheus or socket."""
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


# --------------------------------------------------------------------------- every layer
# The import contract of README "Architecture": a room imports only rooms listed before it
# (its own modules too); nothing imports upward, so there are no cycles between rooms.
ARENA = ENGINE.parent
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("engine", ("arena.engine",)),
    ("host", ("arena.host",)),
    ("match", ("arena.match",)),
    ("storage", ("arena.storage",)),
    ("metrics", ("arena.metrics",)),
    ("transport", ("arena.server", "arena.v1")),
    ("leagues", ("arena.league",)),
    ("tournaments", ("arena.tourney",)),
    ("web", ("arena.web",)),
    ("gateway", ("arena.gateway",)),
    ("cli", ("arena.cli", "arena.cliargs", "arena.demo", "arena.practice", "arena.abtest")),
)
# Third-party packages a room must not use: concurrency, network and storage stay in their rooms.
BANNED: dict[str, tuple[str, ...]] = {
    "match": ("grpc", "google", "prometheus_client", "sqlite3", "asyncio"),
    "storage": ("grpc", "google", "prometheus_client", "trio", "asyncio"),
    "metrics": ("grpc", "google", "trio", "sqlite3"),
}


def _layer_of(module: str) -> int | None:
    for rank, (_name, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return None


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ARENA.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, module: str) -> list[str]:
    """Every module ``path`` names, at the top or lazily inside a function."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names.append(base)
            names += [f"{base}.{a.name}" for a in node.names if base.startswith("arena")]
    return names


def test_every_arena_module_belongs_to_a_layer() -> None:
    """A new room must be placed in the contract (and in README "Architecture") to exist."""
    for path in ARENA.rglob("*.py"):
        module = _module_name(path)
        if module == "arena":
            continue
        assert _layer_of(module) is not None, (
            f"{module} is in no layer: add its room to LAYERS in tests/test_layers.py "
            "and to README 'Architecture'")


def test_imports_run_downward_between_every_layer() -> None:
    """engine <- host <- match <- storage <- metrics <- transport <- leagues <- cli (README
    "Architecture"): no module imports a room above its own, not even lazily."""
    problems: list[str] = []
    for path in ARENA.rglob("*.py"):
        module = _module_name(path)
        rank = _layer_of(module)
        if rank is None:
            continue
        layer = LAYERS[rank][0]
        for name in _imports(path, module):
            top = name.split(".")[0]
            if top in BANNED.get(layer, ()):
                problems.append(f"{module} ({layer}) imports {name}")
            if top != "arena" or name == "arena" or name == "arena.__version__":
                continue
            target = _layer_of(name)
            if target is None:
                problems.append(f"{module} imports {name}, which is in no layer")
            elif target > rank:
                problems.append(f"{module} ({layer}) imports {name} ({LAYERS[target][0]})")
    assert problems == []


def test_the_contract_catches_an_upward_import(tmp_path: Path) -> None:
    """The checker itself: a match module importing the league, and a lazy one, are found."""
    source = tmp_path / "live.py"
    source.write_text("from arena.league import runner\n\ndef f() -> None:\n"
                      "    import arena.server.app\n")
    names = _imports(source, "arena.match.live")
    ranks = [_layer_of(n) for n in names if n.startswith("arena.")]
    assert _layer_of("arena.match.live") == 2
    assert max(r for r in ranks if r is not None) == 6 and 5 in ranks
