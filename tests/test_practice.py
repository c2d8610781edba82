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
                          "--hands", "2", "--out", str(tmp_path / "logs")],
                         cwd=ROOT, env=env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    # Said when the bot exits, without waiting out --connect-seconds (60 s) for it to connect.
    assert "practice: no hand was played.\n" in out.stdout and "not connected after" not in out.stdout
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


def test_a_bot_that_dies_before_connecting_ends_the_practice_at_once(tmp_path: Path) -> None:
    """The bot's process exited (no such file, a syntax error, a command that fails) and the
    dealer still waited out --connect-seconds (default 60 s) before saying so: it stops when the
    bot exits, and says why without the wait."""
    (tmp_path / "broken.py").write_text("def decide(view):\n    return (\n")
    bots = {"missing": "nosuch.py:decide", "syntax": "broken.py:decide"}
    runs = {name: subprocess.Popen([sys.executable, "-m", "arena.cli", "practice", "--bot", bot,
                                    "--hands", "2", "--out", str(tmp_path / name)],
                                   cwd=tmp_path, env=env(), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
            for name, bot in bots.items()}
    outs = {name: proc.communicate(timeout=180) for name, proc in runs.items()}
    for name, (out, err) in outs.items():
        assert runs[name].returncode == 1, (name, out, err)
        assert "practice: no hand was played.\nyour bot exited with code " in out, (name, out)
        assert "not connected after" not in out, (name, out)
        assert err == "", (name, err)  # nor "connection lost" from the built-in bots
    assert "code 2 before connecting:\narena-bot: error: no such file: nosuch.py" in outs["missing"][0]
    assert "SyntaxError" in outs["syntax"][0]


def test_bad_practice_options_are_one_line_errors_before_anything_starts(tmp_path: Path) -> None:
    """`--bot ""` printed the start banner, made a temporary directory, then the error and stray
    "Error in sys.excepthook" lines; `--games FT,XX` was reported as `--set`."""
    cases = ((["--bot", ""], "arena: error: --bot is empty: give a command or file.py:function"),
             (["--bot", "python 'bot.py"], "arena: error: --bot \"python 'bot.py\": No closing quotation"),
             (["--bot", "x.py:decide", "--games", "FT,XX"], "arena: error: --games: unknown game 'XX'"))
    for args, message in cases:
        out = subprocess.run([sys.executable, "-m", "arena.cli", "practice", *args,
                              "--out", str(tmp_path / "logs")],
                             cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=120)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert out.stdout == "" and not (tmp_path / "logs").exists(), (args, out.stdout)
        assert len(out.stderr.splitlines()) == 1 and out.stderr.startswith(message), (args, out.stderr)


FAULTY_BOT = '''\
import itertools
import time

from arena_bot import Action, SeatView

COUNT = itertools.count(1)


def decide(view: SeatView) -> Action:
    k = next(COUNT)
    if k == 1:
        print("thinking hard about decision", view.request.decision_id)
    if k % 5 == 2:
        raise ZeroDivisionError("my strategy divided by zero")
    if k % 5 == 3 and view.can(Action.RAISE):
        return view.raise_to(view.choices[Action.RAISE].max_to_chips + 7)  # never legal
    if k == 4:
        time.sleep(3.0)  # past the 1 s decision time: this decision times out
    return view.check_or_call()
'''


def test_practice_shows_the_bots_output_and_its_faults_by_cause(tmp_path: Path) -> None:
    """Issue 39: an exception every fifth decision showed nothing and an illegal raise only a
    count. The bot's own lines are shown prefixed with its name, and the summary names each
    exception with its traceback, each rejection with its reason, hand and seat, and the
    timeout with its decision and how long it was open."""
    (tmp_path / "faulty.py").write_text(FAULTY_BOT)
    out = subprocess.run([sys.executable, "-m", "arena.cli", "practice", "--bot", "faulty.py:decide",
                          "--hands", "8", "--games", "FT", "--opponents", "call",
                          "--set", "decision_seconds=1", "--set", "time_bank_seconds=0",
                          "--out", str(tmp_path / "logs")],
                         cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=200)
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout
    assert re.search(r"^you \| thinking hard about decision practice-h1-d\d+$", text, re.M), text
    assert re.search(r"^you \| .*ZeroDivisionError: my strategy divided by zero$", text, re.M)
    summary = text[text.index("faults of your bot:"):]
    counts = re.search(r"faults of your bot: (\d+) rejected repl(?:y|ies), (\d+) exceptions?, "
                       r"(\d+) timeouts?", summary)
    assert counts is not None, summary
    rejected, exceptions, timeouts = map(int, counts.groups())
    assert rejected >= 1 and exceptions >= 2 and timeouts == 1, summary
    # An exception with its traceback, and where.
    assert re.search(r"exceptions in your bot's code \(\d+; each answered by check/fold\):\n"
                     r"    at hand \d+, seat \d, \w+ \(decision practice-h\d+-d\d+\):\n"
                     r"      Traceback \(most recent call last\):\n", summary), summary
    assert 'faulty.py", line' in summary and "ZeroDivisionError: my strategy" in summary
    assert "arena_bot" not in summary  # the bot's own frames only, not the SDK's
    # The illegal raise: the dealer's reason, then hand and seat.
    assert re.search(r"    raise to \d+ is not legal[^\n]*; allowed: [^\n]+\n"
                     r"      at hand \d+, seat \d, \w+ \(decision practice-h\d+-d\d+\)",
                     summary), summary
    # The timeout: its decision and the time it was open.
    assert re.search(r"timeouts \(1; the dealer acted for the seat\):\n"
                     r"    hand \d+, seat \d, \w+ \(decision practice-h\d+-d\d+\): no answer within "
                     r"1\.\d\d s; the dealer (checked|folded) for the seat", summary), summary


def test_a_bot_without_faults_is_told_so(tmp_path: Path) -> None:
    from arena.match.fault_report import report

    assert report([]) == ["faults of your bot: none (no rejection, exception or timeout)"]


def test_practice_runs_a_bot_package_in_its_sandbox(tmp_path: Path) -> None:
    """Issue 36: `--bot DIR` with an arena-bot.toml: built, then one sandboxed instance."""
    from arena.host.sandbox import probe

    if probe():
        pytest.skip(f"no sandbox here: {probe()}")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "my_bot.py").write_text(MY_BOT)
    (package / "arena-bot.toml").write_text(
        'name = "mine"\nbuild = "echo built > note.txt"\n'
        'run = "echo hello from the sandbox; python3 -m arena_bot my_bot.py:decide"\n')
    out = subprocess.run([sys.executable, "-m", "arena.cli", "practice", "--bot", str(package),
                          "--hands", "6", "--games", "FT", "--out", str(tmp_path / "logs")],
                         cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=200)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "built mine in its sandbox" in out.stdout and "6 hands played" in out.stdout
    assert (package / "note.txt").read_text() == "built\n"
    logs = tmp_path / "logs" / "bots" / "you"
    assert "hello from the sandbox" in (logs / "practice.stdout.log").read_text()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "arena-bot.toml").write_text('name = "b"\nbuild = "exit 7"\nrun = "true"\n')
    out = subprocess.run([sys.executable, "-m", "arena.cli", "practice", "--bot", str(broken)],
                         cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "the build failed with exit code 7" in out.stderr
