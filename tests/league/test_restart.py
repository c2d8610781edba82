"""The organizer restarts a league; the bots reconnect by themselves; no phantom hands (issue 14)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from arena.storage.store import SqliteStore
from tests.league.test_league_e2e import ROOT, phh_tables, write_league
from tests.server.procs import env

pytestmark = pytest.mark.timeout(240)

# Two calling stations: nobody folds, so alpha acts in every hand and no hand past the gate can
# end without it (with a folding beta, a hand 11 could, and the first run dealt 21 hands).
BOTS = [("alpha", "call"), ("beta", "call")]
GATED_HANDS = 10  # hands per match the first run can deal before alpha waits for the gate

# alpha: a calling station that, at each match's hand GATED_HANDS + 1, waits until the test opens
# its gate. The first run cannot finish, however fast the league: the organizer's stop comes
# mid-way by construction; the second run finds the gate open.
GATED_BOT = f"""
import time
from pathlib import Path

GATE = Path(__file__).with_name("gate.open")


def play(view):
    while view.request.hand_number > {GATED_HANDS} and not GATE.exists():
        time.sleep(0.05)
    return view.check_or_call()
"""


def _league(league: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", str(league)],
                            cwd=league.parent, env=env(), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)


def _hands(store_path: Path) -> int:
    if not store_path.exists():
        return 0
    with SqliteStore(store_path) as store:
        leagues = store.list_leagues()
        if not leagues:
            return 0
        return sum(len(store.completed_hands(m.match_id))
                   for m in store.list_matches(leagues[0].league_id))


def test_a_restarted_league_gets_its_bots_back_and_deals_no_phantom_hand(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    league = write_league(tmp_path, BOTS, hands_per_match=40, listen=f"127.0.0.1:{port}",
                          start_timeout_seconds=2, absent="wait")
    gated = tmp_path / "gated_bot.py"
    gated.write_text(GATED_BOT)
    first = _league(league)
    bots = [subprocess.Popen([sys.executable, "-m", "arena.cli", "bot",
                              f"{gated}:play" if name == "alpha" else kind, "--server",
                              f"127.0.0.1:{port}", "--token", f"token-{name}-0001", "--name", name,
                              "--connect-seconds", "60"],
                             cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
            for name, kind in BOTS]
    try:
        deadline = time.monotonic() + 90
        while _hands(tmp_path / "league.sqlite") < 10 and time.monotonic() < deadline:
            time.sleep(0.2)
        first.send_signal(signal.SIGINT)  # the organizer stops the league
        out, _ = first.communicate(timeout=60)
        assert first.returncode == 3, out
        played_before = _hands(tmp_path / "league.sqlite")
        assert 10 <= played_before <= 2 * GATED_HANDS
        (tmp_path / "gate.open").touch()
        time.sleep(3)  # the dealer is away; the bots keep trying
        assert all(bot.poll() is None for bot in bots), "a bot gave up during the restart"
        second = _league(league)
        out, _ = second.communicate(timeout=180)
        assert second.returncode == 0, out
        for bot in bots:
            bot_out, bot_err = bot.communicate(timeout=60)
            assert bot.returncode == 0, bot_err
            assert "all your matches on this dealer are over" in bot_out, bot_out
            assert "reconnecting until stopped" in bot_err
    finally:
        for proc in (first, *bots):
            if proc.poll() is None:
                proc.kill()
    hands = phh_tables(tmp_path / "logs")
    voids = [tomllib.loads(path.read_text()) for path in (tmp_path / "logs").glob("*.void.phhs")]
    void_count = sum(len(v) for v in voids)
    assert void_count <= 2  # at most the hand in flight at each table when the league stopped
    assert len(hands) + void_count == 2 * 40  # every hand dealt once: completed or void
    assert all(h["_absent"] == [0, 0] for h in hands), "a hand was dealt for an absent bot"
    # The voided hands replay as voids, not failures, checked against the revealed seed.
    void_files = sorted(str(p) for p in (tmp_path / "logs").glob("*.void.phhs"))
    if void_files:
        replay = subprocess.run([sys.executable, "-m", "arena.cli", "replay", *void_files],
                                cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=60)
        assert replay.returncode == 0, replay.stdout + replay.stderr
        assert replay.stdout.count("\nvoid ") + replay.stdout.startswith("void ") == void_count
        assert f"0 of 0 hands replayed to their logged stacks; {void_count} void hand(s)" in replay.stdout
