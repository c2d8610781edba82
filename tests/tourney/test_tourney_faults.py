"""Tournaments end to end over gRPC, their faults: a bot that never connects is blinded away,
and a tournament killed with SIGKILL resumes without losing a chip. (Apart from
test_tourney_e2e.py, whose helpers they use, so that two pytest workers can share them.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.server.procs import env, free_port
from tests.tourney.test_tourney_e2e import (
    TournamentProcess,
    check_chips_carried,
    check_store,
    hands_by_event,
    write_tournament,
)


def test_a_bot_that_never_connects_is_blinded_away_and_placed_last_of_its_hand(
        tmp_path: Path) -> None:
    names = ["n0", "n1", "n2", "n3", "ghost"]
    path = write_tournament(tmp_path, names, body="""
name = "ghost"
format = "freezeout"
seed = 9
seats_per_table = 5
starting_stack = 120
start_timeout_seconds = 15
[levels]
small_blind = 5
big_blind = 10
hands = 3
[rules]
games = ["FT"]
decision_seconds = 5.0
""")
    proc = TournamentProcess(path, names[:4])
    code, output = proc.wait()
    assert code == 0, output
    assert "not connected (blinded away while absent): ghost" in output
    doc = json.loads((tmp_path / "logs" / "results.json").read_text())
    (event,) = doc["events"]
    ghost = next(e for e in event["eliminations"] if e["player"] == "ghost")
    assert not ghost["was_present"]
    same_hand = [e for e in event["eliminations"] if e["round"] == ghost["round"]]
    assert ghost["place"] == max(e["place"] for e in same_hand)
    hands = hands_by_event(tmp_path / "logs")["freezeout"]
    ghost_hands = [h for h in hands if "ghost" in h["players"]]
    for hand in ghost_hands:  # it posts its blinds, checks or folds: never bets or raises
        seat = hand["players"].index("ghost")
        acted = [a for a in hand["actions"] if a.startswith(f"p{seat + 1} ")]
        assert not [a for a in acted if a.split()[1] == "cbr"]
    assert sum(h["_absent"][h["players"].index("ghost")] for h in ghost_hands) >= 1


def test_a_tournament_killed_with_sigkill_resumes_without_losing_a_chip(tmp_path: Path) -> None:
    names = [f"k{k}" for k in range(8)]
    path = write_tournament(tmp_path, names, body="""
name = "resume"
format = "freezeout"
seed = 3
seats_per_table = 4
starting_stack = 400
start_timeout_seconds = 60
[levels]
small_blind = 5
big_blind = 10
hands = 3
[rules]
games = ["FT", "F7S"]
decision_seconds = 5.0
""", listen=f"127.0.0.1:{free_port()}")  # the same address again: the bots reconnect to it
    first = TournamentProcess(path, names, slow="k0")
    first.read_line(r"out in place")
    time.sleep(0.05)  # hand for hand: k0's table has a hand in flight most of the time
    os.kill(first.server.pid, signal.SIGKILL)
    first.server.wait(timeout=10)
    log_dir = tmp_path / "logs"
    state = json.loads((log_dir / "state.json").read_text())
    assert oct((log_dir / "state.json").stat().st_mode & 0o777) == "0o600"
    (current,) = state["current"]
    assert sum(current["stacks"].values()) == 8 * 400
    in_flight = [f"freezeout-t{p['table']}-h{p['hand']}" for p in current["pending"]
                 if p["table"] not in {r["table"] for r in current["reported"]}]
    assert in_flight, "the kill came while hands were being dealt"
    # Run it again: the bots reconnect (their reconnect window is 30 s).
    second = subprocess.Popen([sys.executable, "-m", "arena.cli", "tournament", "run", str(path)],
                              cwd=tmp_path, env=env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        out, err = second.communicate(timeout=240)
    finally:
        first.stop_bots()
    assert second.returncode == 0, out + err
    for hand_id in in_flight:
        assert f"{hand_id}: voided" in out
    voided = [json.loads(line) for line in (log_dir / "tournament.jsonl").read_text().splitlines()
              if '"kind":"voided"' in line]
    assert {v["hand"] for v in voided} >= set(in_flight)
    hands = hands_by_event(log_dir)["freezeout"]
    assert not {h["_match_id"] for h in hands} & set(in_flight)  # voided hands are never logged
    chips = check_chips_carried(hands, dict.fromkeys(names, 400))
    assert sorted(chips.values())[-1] == 8 * 400
    check_store(tmp_path / "tournament.sqlite", hands)
    doc = json.loads((log_dir / "results.json").read_text())
    assert sorted(s["place"] for s in doc["standings"]) == list(range(1, 9))
    (event,) = doc["events"]
    assert all(e["was_present"] for e in event["eliminations"])  # the bots came back
    lines = (log_dir / "tournament.jsonl").read_text().splitlines()
    rounds = [json.loads(x)["round"] for x in lines if '"kind":"round"' in x]
    assert len(rounds) == len(set(rounds))  # nothing logged twice across the kill
