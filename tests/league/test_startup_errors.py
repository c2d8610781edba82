"""Start-up problems are one clear line (issue 39 item 5): a busy metrics_port names the port
and the key (before: "[Errno 98] Address already in use"); Ctrl-C while a league starts up
exits 3 without a traceback (before: a KeyboardInterrupt traceback, exit -2)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena import cli
from tests.league.test_league_e2e import write_league
from tests.server.procs import env

pytestmark = pytest.mark.timeout(120)

BOTS = [(f"b{k}", "call") for k in range(12)]  # tokens hashed at start-up: scrypt, slow on purpose


def test_a_busy_metrics_port_names_the_port_and_the_key(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        league = write_league(tmp_path, BOTS[:2], metrics_port=port)
        run = subprocess.run([sys.executable, "-m", "arena.cli", "league", "run", str(league)],
                             cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=100)
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert f"127.0.0.1:{port}" in run.stderr and f"metrics_port = {port}" in run.stderr
    assert "in use" in run.stderr


def test_ctrl_c_during_start_up_exits_3_without_a_traceback(tmp_path: Path) -> None:
    league = write_league(tmp_path, BOTS)
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", str(league)],
                            cwd=tmp_path, env=env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (tmp_path / "league.sqlite").exists():  # past the imports: starting up
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, out + err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "interrupted" in out + err


@pytest.mark.no_dealer
def test_an_interrupt_before_a_command_handles_signals_is_exit_3(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Wherever start-up is when Ctrl-C comes (here: opening the league's store)."""
    import arena.league.commands as commands

    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "LeagueRun", interrupted)
    league = write_league(tmp_path, BOTS[:2])
    assert cli.main(["league", "run", str(league)]) == 3
    assert capsys.readouterr().err == "arena league: interrupted (Ctrl-C)\n"
