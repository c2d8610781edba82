"""The rules engine does no I/O (the project brief: no files, clocks, OS randomness, network or
import-path edits): its sources are scanned for the calls and imports that would do it, and a
process that plays, logs and replays hands through it is watched with an audit hook."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "arena" / "engine"

# Every standard-library module the engine needs: pure computation only. Not here, so banned:
# os, sys, io, time, datetime, socket, secrets, subprocess, shutil, tempfile, glob, importlib,
# threading, logging, uuid (uuid4 reads the OS), ...
ALLOWED_MODULES = frozenset({
    "__future__", "_random", "collections", "dataclasses", "enum", "functools", "hashlib", "hmac",
    "itertools", "math", "operator", "pathlib", "random", "statistics", "tomllib", "types",
    "typing",
})
# Builtins that read or write outside the process, or import (``exec`` is allowed: frozen.py
# builds constructors from a class's own field names, as dataclasses does).
BANNED_CALLS = frozenset({"open", "print", "input", "breakpoint", "__import__", "exit", "quit"})
# Methods that touch the file system (pathlib's, io's): a ``Path`` is only ever a value here.
BANNED_METHODS = frozenset({
    "open", "read_text", "read_bytes", "write_text", "write_bytes", "touch", "mkdir", "rmdir",
    "unlink", "iterdir", "glob", "rglob", "exists", "is_file", "is_dir", "is_symlink", "stat",
    "lstat", "resolve", "absolute", "chmod", "readlink", "symlink_to", "hardlink_to",
    "expanduser", "cwd", "home", "samefile", "owner", "group", "fileno", "flush", "readline",
    "readlines", "writelines",
})
BANNED_NAMES = frozenset({"__path__", "__loader__", "__spec__"})


def io_problems(source: str, name: str) -> list[str]:
    """What in ``source`` would do I/O, each as ``file:line: what``."""
    problems: list[str] = []
    for node in ast.walk(ast.parse(source, filename=name)):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        for module in modules:
            top = module.split(".")[0]
            if top != "arena" and top not in ALLOWED_MODULES:
                problems.append(f"{where}: imports {module}")
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in BANNED_CALLS:
                problems.append(f"{where}: calls {func.id}()")
            elif isinstance(func, ast.Attribute) and func.attr in BANNED_METHODS:
                problems.append(f"{where}: calls .{func.attr}()")
            if (isinstance(func, ast.Attribute) and func.attr == "Random"
                    and not (node.args or node.keywords)):
                problems.append(f"{where}: an unseeded Random() seeds itself from the OS")
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in ("random", "_random") and node.attr != "Random"):
            problems.append(f"{where}: random.{node.attr} (the global generator, seeded by the OS)")
        if isinstance(node, ast.Name) and node.id in BANNED_NAMES:
            problems.append(f"{where}: uses {node.id} (import machinery)")
    return problems


def test_no_engine_source_does_io() -> None:
    """Every engine module: no file, OS, clock, network or import-path access (its callers in
    arena/host read files and pass text or bytes)."""
    problems = [p for path in sorted(ENGINE.glob("*.py"))
                for p in io_problems(path.read_text(), path.name)]
    assert problems == []


def test_the_scan_finds_each_kind_of_io() -> None:
    """The checker itself: each way in is reported."""
    source = (
        "import os\nimport sys\nfrom time import monotonic\nimport random\nimport pathlib\n"
        "def f(p: pathlib.Path) -> None:\n"
        "    open('x')\n    p.read_text()\n    p.write_bytes(b'')\n    print(1)\n"
        "    random.random()\n    random.Random()\n    random.Random(7)\n"
        "    __path__.insert(0, 'x')\n"
    )
    found = io_problems(source, "bad.py")
    assert sorted(p.split(": ", 1)[1] for p in found) == sorted([
        "imports os", "imports sys", "imports time", "calls open()", "calls .read_text()",
        "calls .write_bytes()", "calls print()", "random.random (the global generator, seeded "
        "by the OS)", "an unseeded Random() seeds itself from the OS",
        "uses __path__ (import machinery)"])


# Run in a child process: an audit hook cannot be removed. The engine's modules are imported
# first (reading them is the import system's I/O), then every audited OS access is recorded
# while hands of every game are dealt, played, written as PHH, read back and replayed, a rules
# file is parsed from bytes and equity and luck are computed.
_WATCH = """
import json, sys
import arena.engine
from arena.engine import (actions, cards, configfile, dealing, equity, errors, evaluate, events,
    games, legal, luck, phh, pots, rules, seeds, settlement, shown, shuffle, state, units)
evaluate.fill_tables()
seen = []
PREFIXES = ("os.", "socket.", "subprocess.", "shutil.", "glob.", "pathlib.", "time.", "sqlite3.",
            "urllib.", "ctypes.", "tempfile.", "fcntl.", "mmap.", "signal.", "winreg.")

def hook(event, args):
    if event in ("open", "import") or event.startswith(PREFIXES):
        seen.append(f"{event} {str(args)[:120]}")

sys.addaudithook(hook)
data, _text = configfile.parse_toml(b"[rules]\\nmax_raises = 4\\nstud_tie_break = 'seat'\\n",
                                    name="league.toml", what="league")
the_rules = rules.Rules.from_mapping(data["rules"], where="league.toml [rules]")
hands = []
for n, code in enumerate(games.GameCode):
    hand = state.HandState(games.variant_for(code), [2000] * 4, rules=the_rules, seed=n)
    step = 0
    while not hand.is_over:
        legal_now = hand.legal_actions()
        if actions.ActionKind.RAISE in legal_now.kinds() and step % 3 == 0:
            hand.act(legal_now.seat, actions.ActionKind.RAISE, legal_now.raise_amounts()[0])
        else:
            hand.check_or_call()
        step += 1
    luck.hand_luck(hand.variant, hand.events, hand.seat_count, hand_seed=n)
    hands.append(phh.hand_fields(hand, players=["a", "b", "c", "d"]))
text = phh.dumps_hands(hands)
replayed = list(phh.iter_replays(phh.loads_bytes(text.encode(), name="hands.phhs"), the_rules))
assert len(replayed) == len(hands) and all(error is None for _, _, error in replayed), replayed
equity.equity("FT", [cards.parse_cards("AsAh"), cards.parse_cards("KdKc")], samples=200, seed=1)
seeds.derive_secret(12345, "deal-set", "r1-t1")
print(json.dumps(seen))
"""


def test_playing_logging_and_replaying_hands_does_no_io() -> None:
    """docs/house-rules.md §10 rules, every game played, PHH out and in, equity, luck: no audited I/O."""
    out = subprocess.run([sys.executable, "-c", _WATCH], capture_output=True, text=True,
                         check=True, timeout=120)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_the_engine_package_is_its_source_directory_only() -> None:
    """Nothing puts another folder on the engine's __path__."""
    import arena.engine

    assert [Path(p).resolve() for p in arena.engine.__path__] == [ENGINE]
