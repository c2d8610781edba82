"""The `arena simulate` and `arena replay` commands, run as a user would."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import build_parser, main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_simulate_is_byte_identical_for_the_same_arguments(tmp_path: Path) -> None:
    """docs/house-rules.md §1: every hand is dealt from a seed derived from the match seed."""
    args = ["simulate", "--game", "horse", "--players", "6", "--hands", "300", "--seed", "5"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    a = (tmp_path / "a" / "hands.phhs").read_bytes()
    assert a == (tmp_path / "b" / "hands.phhs").read_bytes()
    assert main(["simulate", "--players", "6", "--hands", "300", "--seed", "6",
                 "--out", str(tmp_path / "c")]) == 0
    assert a != (tmp_path / "c" / "hands.phhs").read_bytes()


def test_simulate_prints_a_summary_with_hands_per_second(tmp_path: Path) -> None:
    out = run("simulate", "--game", "F7S/8", "--players", "3", "--hands", "50", "--seed", "1",
              "--policy", "call", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "played 50 hands (F7S/8 50)" in out.stdout
    assert "hands/s" in out.stdout


def test_replay_accepts_a_simulated_file_and_rejects_a_tampered_one(tmp_path: Path) -> None:
    """`arena replay` exits non-zero naming the hand and the first difference."""
    assert main(["simulate", "--players", "4", "--hands", "40", "--seed", "2", "--policy", "call",
                 "--out", str(tmp_path)]) == 0
    path = tmp_path / "hands.phhs"
    ok = run("replay", str(path))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "40 of 40 hands replayed" in ok.stdout
    lines = path.read_text().splitlines()
    # Change the finishing stacks of hand 7 (keep the total): p1 gets one chip more, p2 one less.
    start = lines.index("[7]")
    k = next(i for i in range(start, len(lines)) if lines[i].startswith("finishing_stacks"))
    values = [int(v) for v in lines[k].split("=", 1)[1].strip(" []").split(",")]
    values[0] += 1
    values[1] -= 1
    lines[k] = f"finishing_stacks = [{', '.join(map(str, values))}]"
    path.write_text("\n".join(lines) + "\n")
    bad = run("replay", str(path))
    assert bad.returncode == 1
    assert "hands.phhs[7]: finishing_stacks differ (p1: log" in bad.stdout


def test_replay_with_rules_override_and_show(tmp_path: Path) -> None:
    assert main(["simulate", "--game", "FT", "--players", "3", "--hands", "5", "--seed", "3",
                 "--policy", "call", "--set", "small_bet=50", "--set", "big_bet=100",
                 "--set", "small_blind=25", "--set", "big_blind=50",
                 "--out", str(tmp_path)]) == 0
    out = run("replay", str(tmp_path / "hands.phhs"), "--show", "--hand", "2")
    assert out.returncode == 0, out.stdout
    assert "-- river" in out.stdout and "main pot, whole pot of " in out.stdout
    assert "1 of 1 hands replayed" in out.stdout


def test_bad_rules_key_is_a_clear_error(tmp_path: Path) -> None:
    out = run("simulate", "--hands", "1", "--set", "max_raisez=4")
    assert out.returncode == 2
    assert "--set: unknown key(s) 'max_raisez'" in out.stderr


def test_corrupt_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.phh"
    path.write_text("variant = 'FT'\nactions = [\n")
    out = run("replay", str(path))
    assert out.returncode == 2  # docs/cli.md: an invalid file is bad input
    assert "bad.phh: not valid TOML" in out.stdout


def test_unreadable_or_invalid_replay_file_exits_2(tmp_path: Path) -> None:
    """docs/cli.md: exit 2 for an unreadable or invalid file (1 stays for a hand that does not
    verify); the other files are still checked."""
    assert main(["simulate", "--players", "2", "--hands", "3", "--seed", "1", "--out", str(tmp_path)]) == 0
    good = str(tmp_path / "hands.phhs")
    noise = tmp_path / "noise.phhs"
    noise.write_bytes(bytes(range(255, -1, -1)) * 2)
    for bad in (str(tmp_path / "nonexist.phhs"), str(noise)):
        out = run("replay", bad, good)
        assert out.returncode == 2, (bad, out.stdout, out.stderr)
        assert f"FAIL {bad}: " in out.stdout and "3 hands" in out.stdout
        assert "Traceback" not in out.stdout + out.stderr


def test_demo_tokens_are_random_per_run() -> None:
    """Issue 7: the demo's tokens were 'demo-token-<name>', guessable from the bot names."""
    from arena.demo import demo_tokens

    first, second = demo_tokens(), demo_tokens()
    assert first.keys() == second.keys()
    for name, token in first.items():
        assert token != second[name] and name not in token and len(token) >= 24


def test_bad_input_files_are_clear_errors_never_tracebacks(tmp_path: Path) -> None:
    """Issue 7: non-UTF-8, random bytes, deeply nested TOML and uncreatable directories are
    one-line errors with the file named, not tracebacks."""
    noise = tmp_path / "noise.phh"
    noise.write_bytes(bytes(range(256)) * 8)
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 3000 + "]" * 3000 + "\n")
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'name = "caf\xe9"\n')
    cases = [
        (("replay", str(noise)), "noise.phh: not a hand history (not UTF-8"),
        (("replay", str(deep)), "deep.toml: not a hand history (nested too deeply)"),
        (("serve", "--config", str(deep)), "deep.toml: nested too deeply"),
        (("league", "status", str(latin)), "latin.toml: not UTF-8 text"),
        (("serve", "--config", str(noise)), "noise.phh: not UTF-8 text"),
        (("simulate", "--hands", "-5"), "--hands: must be from 1 to 100000000, got -5"),
        (("simulate", "--hands", "2", "--out", "/proc/no/such/dir"), "No such file or directory: '/proc/no"),
    ]
    for args, message in cases:
        out = run(*args)
        assert out.returncode in (1, 2), (args, out.stdout, out.stderr)
        assert "Traceback" not in out.stderr + out.stdout, args
        assert message in out.stderr + out.stdout, (args, out.stdout, out.stderr)


def test_replay_show_explains_a_hi_lo_split(tmp_path: Path) -> None:
    """docs/house-rules.md §5: hi-lo pots split in halves; --show says who won which half with what."""
    assert main(["simulate", "--game", "FO/8", "--players", "3", "--hands", "30", "--seed", "4",
                 "--policy", "call", "--out", str(tmp_path)]) == 0
    out = run("replay", str(tmp_path / "hands.phhs"), "--show")
    assert out.returncode == 0, out.stdout + out.stderr
    blocks = out.stdout.split("\nok   ")
    split = next(b for b in blocks if "low half" in b and "high half" in b)
    lines = split.splitlines()
    assert "Fixed-limit Omaha Hi-Lo 8 or better: " in lines[1] and "[button]" in lines[1]
    low = next(line for line in lines if "low half" in line)
    winner = low.split(": ", 1)[1].split(" wins ")[0]
    shown = next(line for line in lines if line.strip().startswith(winner) and " shows " in line)
    low_words = low.rsplit(" with ", 1)[1]
    assert low_words.endswith(" low") and low_words in shown  # e.g. "7-5-3-2-A low"
    assert next(line for line in lines if line.startswith("  nets: "))
    assert lines[-1].startswith("  legend: [A♠] a face-down card")


def test_hand_out_of_range_is_an_error(tmp_path: Path) -> None:
    assert main(["simulate", "--players", "2", "--hands", "3", "--seed", "1", "--out", str(tmp_path)]) == 0
    out = run("replay", str(tmp_path / "hands.phhs"), "--hand", "4")
    assert out.returncode == 2
    assert out.stderr.strip() == (f"arena: error: --hand 4: {tmp_path / 'hands.phhs'} has no such hand; "
                                  "it holds hands 1 to 3")
    assert run("replay", str(tmp_path / "hands.phhs"), "--hand", "3").returncode == 0


def test_a_closed_pipe_is_not_a_traceback(tmp_path: Path) -> None:
    assert main(["simulate", "--players", "6", "--hands", "400", "--seed", "1", "--out", str(tmp_path)]) == 0
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "replay", str(tmp_path / "hands.phhs"),
                             "--show"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    _, err = proc.communicate(timeout=120)
    assert b"Traceback" not in err and b"BrokenPipeError" not in err, err
    assert proc.returncode == 0


def test_every_option_has_help_with_its_default() -> None:
    from arena.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"arena {name} {action.dest} has no help"
    text = run("simulate", "--help").stdout
    assert "hands to play (default: 1000)" in text
    assert "(default: None)" not in text


def test_the_demos_random_bots_are_seeded() -> None:
    """`make demo` prints the same leaderboard every run: no bot draws from an unseeded RNG."""
    from arena.demo import BOTS, bot_command

    seeds = []
    for name, kind in BOTS:
        command = bot_command("python", name, kind, "127.0.0.1:1")
        seeds.append(command[command.index("--seed") + 1])
    assert len(set(seeds)) == len(BOTS)  # each random bot its own sequence
    assert "--seed-each-decision" in command  # the same answers however its tables interleave


# What a bot's process must not load: the dealer, its engine, storage and leagues (README "Bots").
DEALER_MODULES = ("arena.server", "arena.match", "arena.engine", "arena.storage", "arena.league",
                  "arena.web", "arena.v1", "trio", "sqlite3")
# `arena bot ...` as `python -m arena.cli` runs it, reporting at its exit what it had loaded.
_BOT_PROCESS = """
import atexit, gc, runpy, sys
def report():
    loaded = sorted(m for m in sys.modules if any(m == f or m.startswith(f + ".") for f in {0!r}))
    print("loaded:", ",".join(loaded), "frozen:", gc.get_freeze_count())
atexit.register(report)
sys.argv = ["arena", *{1!r}]
runpy.run_module("arena.cli", run_name="__main__", alter_sys=True)
"""


def test_arena_bot_plays_without_loading_the_dealer(tmp_path: Path) -> None:
    """Before: `arena bot` imported the dealer (the server app, trio, the tables, the engine) and
    the leagues' leaderboard, ~290 ms of CPU per bot process for nothing it runs; the SDK alone
    costs about a third of that. Its objects are frozen once loaded (no collection, the final
    one at exit included, scans them again)."""
    import asyncio

    from tests.server.harness import make_config, running, token_for

    config = make_config(tmp_path, ["alice", "bob"], hands=3)

    async def scenario() -> list[tuple[int, str]]:
        async with running(config) as (server, address):
            bots = [await asyncio.create_subprocess_exec(
                sys.executable, "-c", _BOT_PROCESS.format(
                    DEALER_MODULES, ["bot", "call", "--server", address, "--name", name]),
                env={**os.environ, "ARENA_TOKEN": token_for(name)},
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
                for name in ("alice", "bob")]
            outs = [await asyncio.wait_for(bot.communicate(), 60) for bot in bots]
            await server.run_until_done()
        return [(bot.returncode or 0, out.decode()) for bot, (out, _) in zip(bots, outs, strict=True)]

    for code, out in asyncio.run(scenario()):
        assert code == 0, out
        played = re.search(r": (\d+) decisions \(", out)
        assert played is not None and int(played.group(1)) > 0, out
        assert "loaded:  frozen:" in out, out  # nothing of the dealer
        frozen = int(out.rsplit("frozen:", 1)[1].split()[0])
        assert frozen > 0, out


def test_ports_out_of_range_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    """`arena web --port 99999` was an OverflowError traceback from bind(), exit 1."""
    cases = [(["web", "--league", "x.toml", "--port", "99999"], "--port: must be from 0 to 65535, got 99999"),
             (["web", "--league", "x.toml", "--port", "http"], "--port: not a port number: 'http'"),
             (["league", "run", "x.toml", "--web-port", "65536"], "--web-port: must be from 0 to 65535"),
             (["worker", "--metrics-port", "-1"], "--metrics-port: must be from 0 to 65535, got -1")]
    for args, message in cases:
        with pytest.raises(SystemExit) as exit_:
            main(args)
        assert exit_.value.code == 2, args
        assert message in capsys.readouterr().err, args


def test_replay_show_names_the_low_that_wins_a_razz_pot(tmp_path: Path) -> None:
    """Razz pots are whole pots won by the best low: --show printed "wins 1749 with " and nothing."""
    assert main(["simulate", "--game", "FR", "--players", "3", "--hands", "10", "--seed", "4",
                 "--policy", "call", "--out", str(tmp_path)]) == 0
    out = run("replay", str(tmp_path / "hands.phhs"), "--show")
    assert out.returncode == 0, out.stdout + out.stderr
    awards = [line for line in out.stdout.splitlines() if "whole pot of" in line and " with " in line]
    assert awards, out.stdout
    for line in awards:
        words = line.rsplit(" with ", 1)[1]
        assert words.endswith(" low") and len(words) > len(" low"), line  # e.g. "8-6-4-2-A low"


def test_listen_addresses_are_checked_at_parse_time(capsys: pytest.CaptureFixture[str]) -> None:
    """`arena league run L.toml --listen 127.0.0.1:99999` listened on port 34463 (modulo 65536)."""
    for args in (["league", "run", "x.toml", "--listen", "127.0.0.1:99999"],
                 ["league", "run", "x.toml", "--peer-listen", "0.0.0.0:70000"],
                 ["worker", "--listen", "127.0.0.1"],
                 ["serve", "--config", "x.toml", "--listen", "h:port"],
                 ["tournament", "run", "x.toml", "--listen", ":50051"]):
        with pytest.raises(SystemExit) as exit_:
            main(args)
        assert exit_.value.code == 2, args
        assert "must be HOST:PORT with a port from 1 to 65535 (0: any free port)" in capsys.readouterr().err


def test_advertise_addresses_are_checked_at_parse_time(capsys: pytest.CaptureFixture[str]) -> None:
    """`arena worker --advertise nohost` was taken as given: other workers then failed to reach
    this one, long after it started. Port 0 ("any free port") is no address to reach."""
    for value in ("nohost", "host:99999", "host:abc", "", ":50051", "host:0"):
        with pytest.raises(SystemExit) as exit_:
            main(["worker", "--advertise", value])
        assert exit_.value.code == 2, value
        err = capsys.readouterr().err
        assert f"argument --advertise: must be HOST:PORT with a port from 1 to 65535, got {value!r}" \
            in err, (value, err)
    args = build_parser().parse_args(["worker", "--advertise", "10.0.0.7:50052"])
    assert args.advertise == "10.0.0.7:50052"
    assert build_parser().parse_args(["worker"]).advertise is None


@pytest.mark.parametrize(("game", "most"), [("NT", 11), ("FT", 11), ("PO", 10), ("horse", 8)])
def test_simulate_full_ring_tables(tmp_path: Path, game: str, most: int,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """docs/house-rules.md §20: hold'em deals 2 to 11 seats [000 "zwei bis maximal elf Personen"],
    Omaha 10, a rotation with stud 8; one seat more is refused naming the limit, and the
    hands written replay (`arena replay` checks every final stack)."""
    out = tmp_path / game.replace("/", "")
    assert main(["simulate", "--game", game, "--players", str(most), "--hands", "20",
                 "--seed", "2", "--out", str(out)]) == 0
    assert main(["replay", str(out / "hands.phhs")]) == 0
    capsys.readouterr()
    assert main(["simulate", "--game", game, "--players", str(most + 1), "--hands", "2"]) == 2
    assert f"--players must be 2 to {most} for {game}" in capsys.readouterr().err
