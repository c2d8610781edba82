"""`arena serve` as a user runs it: its exit code, what it prints of an aborted match, and the
logs of an earlier run when it cannot start (README "Secret deals", docs/cli.md "Exit codes")."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.procs import ROOT, env, write_config

pytestmark = pytest.mark.timeout(60)

SEATS = [("a", "token-a-0123456789"), ("b", "token-b-0123456789")]


def _serve(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", "serve", "--config", str(config)],
                          cwd=ROOT, env=env(), capture_output=True, text=True, timeout=50)


def test_a_match_whose_bots_never_connect_exits_1_and_keeps_its_seed_secret(tmp_path: Path) -> None:
    """Before: exit 0, and the aborted match's secret seed printed ("seed 5") although its
    result file keeps it secret (null)."""
    config = write_config(tmp_path / "match.toml", seats=SEATS, top={
        "listen": "127.0.0.1:0", "log_dir": "logs", "hands": 4, "seed": 5,
        "match_id": "heads up", "start_timeout_seconds": 0.3, "absent": "forfeit"})
    done = _serve(config)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "match heads up: 0 hands, aborted (" in done.stdout, done.stdout
    assert "seed not revealed" in done.stdout and "seed 5" not in done.stdout, done.stdout
    # The printed path is the file written (its name made safe: "heads_up.phhs").
    (printed,) = [line.split(": ", 1)[1] for line in done.stdout.splitlines()
                  if "hand histories:" in line]
    assert Path(printed).name != "heads up.phhs"
    assert (tmp_path / "logs" / Path(printed).name).read_text() == ""


def test_a_dealer_that_cannot_listen_leaves_the_last_runs_logs_whole(tmp_path: Path) -> None:
    """Before: the match's log was emptied before the dealer tried its port, so a second
    `arena serve` on a taken port wiped the first run's hand histories."""
    logs = tmp_path / "logs"
    logs.mkdir()
    earlier = {"m.phhs": "[1]\nvariant = 'FT'\n", "m.void.phhs": "[1]\n_voided = true\n",
               "m.result.json": '{"match_id": "m"}\n'}
    for name, text in earlier.items():
        (logs / name).write_text(text)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = write_config(tmp_path / "match.toml", seats=SEATS, top={
            "listen": f"127.0.0.1:{port}", "log_dir": "logs", "hands": 4, "match_id": "m"})
        done = _serve(config)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert {p.name: p.read_text() for p in logs.iterdir()} == earlier
