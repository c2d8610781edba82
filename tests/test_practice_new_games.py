"""`arena simulate` and `arena practice` with each of issue 42's games (docs/games.md): every game
deals, logs and replays; practice plays an author's bot against the built-in bots; a table too
big for a game (English Stud, 2-7 triple draw: six seats, docs/house-rules.md §20) is refused up
front with the reason."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.engine.games import ENGINE_VARIANTS
from arena.engine.phh import loads
from arena.engine.rules import Rules
from arena.match.simulate import simulate
from arena.storage.replay import replay_paths
from tests.server.procs import env
from tests.test_practice import MY_BOT

pytestmark = pytest.mark.timeout(240)
NEW_GAMES = sorted(ENGINE_VARIANTS)
# What each game's showdown words look like (tests/engine/test_describe_shown.py has the cases).
WORDS = {"F2L3D": r"[a-z]+-[a-z]+ low: |low with ", "FLL": r"[a-z]+-[a-z]+ low: |low with ",
         "F7SW": r"\(.*\)", "F7SWL": r"[2-9TJQKA](-[2-9TJQKA]){4}( low)?", "F7SW/8": r"\(.*\)",
         "FLH": r"wild: ", "FLH/8": r"wild: ", "FES": r"\(.*\)"}


@pytest.mark.parametrize("game", NEW_GAMES)
def test_simulate_deals_logs_and_replays_each_new_game(tmp_path: Path, game: str) -> None:
    summary = simulate(game=game, players=4, hands=8, seed=5, out_dir=str(tmp_path), policy="call")
    assert summary.hands == 8 and summary.hands_by_game == {game: 8}
    path = tmp_path / "hands.phhs"
    assert {h.fields["variant"] for h in loads(path.read_text())} == {game}
    out = io.StringIO()
    assert replay_paths([str(path)], rules=Rules(), show=True, hand_id=None, out=out) == 0, out.getvalue()
    shows = re.findall(r" shows [^:]+: (.*)", out.getvalue())
    assert shows  # calling to the end: showdowns
    assert all(re.search(WORDS[game], words) for words in shows), shows


def test_practice_plays_every_new_game_against_the_built_in_bots(tmp_path: Path) -> None:
    (tmp_path / "my_bot.py").write_text(MY_BOT)
    games = ",".join(NEW_GAMES)
    out = subprocess.run([sys.executable, "-m", "arena.cli", "practice", "--bot", "my_bot.py:decide",
                          "--hands", "32", "--games", games, "--opponents", "rules,call,random",
                          "--out", str(tmp_path / "logs")],
                         cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=200)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "32 hands played" in out.stdout
    assert "0 timed out" in out.stdout and "0 replies rejected" in out.stdout
    log = tmp_path / "logs" / "practice.phhs"
    hands = loads(log.read_text())
    assert {h.fields["variant"] for h in hands} == set(NEW_GAMES)  # 4 seats: 4 hands of each
    replayed = io.StringIO()
    assert replay_paths([str(log)], rules=Rules(), show=False, hand_id=None, out=replayed) == 0, \
        replayed.getvalue()


def test_practice_refuses_a_table_too_big_for_its_games(tmp_path: Path) -> None:
    (tmp_path / "my_bot.py").write_text(MY_BOT)
    out = subprocess.run([sys.executable, "-m", "arena.cli", "practice", "--bot", "my_bot.py:decide",
                          "--hands", "4", "--games", "FES,F2L3D", "--opponents",
                          "rules,call,random,rules,call,random", "--out", str(tmp_path / "logs")],
                         cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stdout + out.stderr
    assert ("--opponents: a table dealing FES, F2L3D seats 2 to 6; you and 6 opponents would be 7"
            in out.stderr), out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "logs").exists()
