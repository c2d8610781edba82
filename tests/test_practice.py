"""`arena practice` end to end: the author's bot as a process, built-in opponents, the report."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.practice import bot_command
from tests.server.procs import ROOT, env

pytestmark = pytest.mark.timeout(240)

MY_BOT = '''\
from arena_bot import Action, SeatView


def decide(view: SeatView) -> Action:
    ranks = [card[0] for card in view.my_cards]
    if len(set(ranks)) < len(ranks) and view.can(Action.RAISE):
        return view.raise_min()
    return view.check_or_call()
'''


def test_practice_plays_the_authors_bot_and_lists_its_worst_hands(tmp_path: Path) -> None:
    (tmp_path / "my_bot.py").write_text(MY_BOT)
    out = subprocess.run([sys.executable, "-m", "arena.cli", "practice", "--bot", "my_bot.py:decide",
                          "--hands", "12", "--games", "FT,F7S/8", "--opponents", "rules,random",
                          "--out", str(tmp_path / "logs")],
                         cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=200)
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout
    assert "practice: 12 hands of FT, F7S/8; you (my_bot.py:decide) against rules-1, random-2" in text
    assert "12 hands played" in text
    assert re.search(r"^  you +[+-]\d+ chips +[+-]\d+\.\d ± \d+\.\d mbb/hand \(95% CI\)$", text, re.M)
    assert "0 timed out" in text and "0 while absent" in text
    worst = re.findall(r"arena replay (\S+) --show --hand (\d+)", text)
    assert worst, text
    path, number = worst[0]
    shown = subprocess.run([sys.executable, "-m", "arena.cli", "replay", path, "--show", "--hand", number],
                           cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "you (p" in shown.stdout


def test_a_bot_that_never_connects_is_reported(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "arena.cli", "practice", "--bot",
                          f"{sys.executable} -c 'import sys; sys.exit(\"my bot is broken\")'",
                          "--hands", "2", "--connect-seconds", "5", "--out", str(tmp_path / "logs")],
                         cwd=ROOT, env=env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "no hand was played (forfeited: you not connected after 5 s)" in out.stdout
    assert "your bot exited with code 1 before connecting:\nmy bot is broken" in out.stdout


def test_a_bot_command_that_cannot_start_is_a_clear_error(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "arena.cli", "practice", "--bot", "no-such-bot-program",
                          "--hands", "2", "--out", str(tmp_path / "logs")],
                         cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stdout + out.stderr
    expected = ("arena: error: --bot 'no-such-bot-program': cannot start 'no-such-bot-program' "
                "(No such file or directory); give a command (e.g. 'python my_bot.py') or "
                "file.py:function")
    # The error is all it says: the server was stopped (not cancelled), so nothing of gRPC's
    # threads fails at the interpreter's exit ("Error in sys.excepthook", pure Python).
    assert out.stderr.splitlines() == [expected], out.stderr


def test_how_the_bot_is_started() -> None:
    assert bot_command("my_bot.py:decide", "h:1", "t")[1:] == [
        "-m", "arena.cli", "bot", "my_bot.py:decide", "--server", "h:1", "--token", "t", "--name", "you"]
    assert bot_command("node bot.js", "h:1", "t") == ["node", "bot.js", "--server", "h:1", "--token", "t"]
    assert bot_command("x --at {server} --key {token}", "h:1", "t") == ["x", "--at", "h:1", "--key", "t"]
