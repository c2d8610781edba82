"""gRPC's I/O path (arena/host/grpc_io.py, bots/python/arena_bot/_grpc_io.py): the older epoll
path for processes that import arena or the SDK before grpc, the user's GRPC_EXPERIMENTS always
first, only tested grpcio versions, and nothing left in the environment for child processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import grpc

from arena.host import grpc_io

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "bots" / "python"
SDK_IO = SDK / "arena_bot" / "_grpc_io.py"

# Imports arena or the SDK as asked, then grpc; reports the choice, the environment after the
# import, and what a child process started then finds in its environment.
PROBE = """
import importlib.util, json, os, subprocess, sys
first, sdk_file = sys.argv[1:]
if first == "sdk":  # the SDK's module alone (its package imports the whole client)
    spec = importlib.util.spec_from_file_location("sdk_io", sdk_file)
    sdk_io = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sdk_io)
    chosen = sdk_io.OLDER_IO_CHOSEN
else:
    if first == "grpc":
        import grpc
    import arena
    from arena.host import grpc_io
    import grpc
    chosen = grpc_io.older_io_chosen()
child = subprocess.run([sys.executable, "-c", "import os; print(repr(os.environ.get('GRPC_EXPERIMENTS')))"],
                       capture_output=True, text=True, check=True).stdout.strip()
print(json.dumps({"chosen": chosen, "env": os.environ.get("GRPC_EXPERIMENTS"), "child": child}))
"""

def _probe(first: str, env_value: str | None = None, path: Path | None = None) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != grpc_io.ENV}
    if env_value is not None:
        env[grpc_io.ENV] = env_value
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in (path, ROOT, SDK) if p is not None)
    out = subprocess.run([sys.executable, "-c", PROBE, first, str(SDK_IO)], capture_output=True, text=True,
                         env=env, check=True, timeout=60)
    assert "Unknown experiment" not in out.stderr, out.stderr
    result: dict[str, object] = json.loads(out.stdout)
    return result


def test_this_suite_runs_on_the_older_io_path() -> None:
    """tests/conftest.py imports arena before any test imports grpc: every server and client
    of the suite runs on the path the arena's processes use (unless the user set one)."""
    assert grpc.__version__.startswith(grpc_io.TESTED_VERSIONS)
    assert grpc_io.older_io_chosen() == (grpc_io.ENV not in os.environ)


def test_importing_arena_then_grpc_chooses_the_older_path_for_that_import_only() -> None:
    for first in ("arena", "sdk"):
        assert _probe(first) == {"chosen": True, "env": None, "child": "None"}, first


def test_the_users_choice_and_an_earlier_grpc_import_are_left_alone() -> None:
    assert _probe("arena", "") == {"chosen": False, "env": "", "child": "''"}
    assert _probe("sdk", "") == {"chosen": False, "env": "", "child": "''"}
    assert _probe("arena", "-event_engine_client")["chosen"] is False
    assert _probe("grpc") == {"chosen": False, "env": None, "child": "None"}


def test_an_untested_grpcio_version_keeps_its_own_defaults(tmp_path: Path) -> None:
    fake = tmp_path / "grpc"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "_grpcio_metadata.py").write_text('__version__ = """9.0.0"""')
    # The SDK reads the installed distribution's version (importlib.metadata): one found first.
    (tmp_path / "grpcio-9.0.0.dist-info").mkdir()
    (tmp_path / "grpcio-9.0.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: grpcio\nVersion: 9.0.0\n")
    assert _probe("arena", path=tmp_path)["chosen"] is False
    assert _probe("sdk", path=tmp_path)["chosen"] is False
    spec = grpc.__spec__
    assert spec is not None and grpc_io.grpc_version(spec) == grpc.__version__
