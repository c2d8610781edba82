"""Tournaments end to end over gRPC: `arena tournament run` with example bots as processes.

docs/house-rules.md §8 and seed 003: the seed-003 preset with 12 bots and a 27-bot multi-table
H.O.R.S.E. freeze-out (a bot that never connects, and resume after SIGKILL: test_tourney_faults.py).
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from arena.storage.store import MatchFormat, MatchStatus, SqliteStore, TournamentPlacing
from tests.server.procs import env, start_bots, stop_processes

KINDS = ("rules", "call", "random")


def write_tournament(tmp: Path, names: list[str], *, body: str,
                     listen: str = "127.0.0.1:0") -> Path:
    text = f'listen = "{listen}"\nlog_dir = "logs"\n' + body.strip() + "\n"
    for name in names:
        text += f'[[bots]]\nname = "{name}"\ntoken = "token-{name}-0001"\n'
    path = tmp / "tournament.toml"
    path.write_text(text)
    return path


class TournamentProcess:
    """`arena tournament run` (or `arena league run` of a league file with a tournament format)
    and its bots (``packs`` processes of several bots each)."""

    def __init__(self, path: Path, bots: list[str], *, packs: int = 0, slow: str | None = None,
                 command: tuple[str, str] = ("tournament", "run"),
                 record: Path | None = None) -> None:
        self.path = path
        self.server = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", *command, str(path)],
            cwd=path.parent, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.server.stdout is not None
        self.lines: list[str] = []
        self.metrics_url: str | None = None
        address = None
        for line in self.server.stdout:
            self.lines.append(line)
            if m := re.search(r"metrics: (\S+)", line):
                self.metrics_url = m.group(1)
            if m := re.search(r"listening on (\S+)$", line.strip()):
                address = m.group(1)
                break
        assert address is not None, "".join(self.lines) + self.server.stderr.read()  # type: ignore[union-attr]
        self.address = address
        self.procs = start_bots(address, [(name, KINDS[k % 3]) for k, name in enumerate(bots)
                                          if name != slow], packs=packs, record=record)
        if slow is not None:  # alone in its process: it sleeps while it thinks
            self.procs += start_bots(address, [(slow, "slow")], packs=1)

    def read_line(self, pattern: str, timeout: float = 120) -> str:
        assert self.server.stdout is not None
        deadline = time.monotonic() + timeout
        for line in self.server.stdout:
            self.lines.append(line)
            if re.search(pattern, line):
                return line
            assert time.monotonic() < deadline, "".join(self.lines)
        raise AssertionError("".join(self.lines))

    def wait(self, timeout: float = 240) -> tuple[int, str]:
        try:
            out, err = self.server.communicate(timeout=timeout)
        finally:
            self.stop_bots()
        return self.server.returncode, "".join(self.lines) + out + err

    def stop_bots(self) -> None:
        stop_processes(self.procs)


def hands_by_event(log_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """Every logged (not voided) hand, per event, in the order dealt."""
    out: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(log_dir.glob("*.phhs")):
        if path.name.endswith(".void.phhs"):
            continue
        for hand in tomllib.loads(path.read_text()).values():
            out.setdefault(str(hand["_event"]), []).append(hand)
    for hands in out.values():
        hands.sort(key=lambda h: (h["_round"], h["_table"]))
    return out


def check_chips_carried(hands: list[dict[str, Any]], starting: dict[str, int]) -> dict[str, int]:
    """Each hand starts every player with the chips it ended its last hand with (across moves
    and broken tables), and no hand creates or loses a chip; returns the final chips."""
    chips = dict(starting)
    for hand in hands:
        players = hand["players"]
        assert [chips[p] for p in players] == hand["starting_stacks"], hand["_hand_id"]
        assert sum(hand["starting_stacks"]) == sum(hand["finishing_stacks"])
        for player, stack in zip(players, hand["finishing_stacks"], strict=True):
            chips[player] = stack
    assert sum(chips.values()) == sum(starting.values())
    return chips


def check_store(path: Path, hands: list[dict[str, Any]]) -> None:
    """Every logged hand is in the results store exactly once: a finished tournament match
    with its seed revealed, the same players and chips."""
    store = SqliteStore(path)
    try:
        (league,) = store.list_leagues()
        matches = store.list_matches(league.league_id)
        stored = {}
        for match in matches:
            assert match.match_format is MatchFormat.TOURNAMENT
            if match.status is MatchStatus.ABORTED:
                assert not store.completed_hands(match.match_id)
                continue
            assert match.status is MatchStatus.FINISHED and match.seed
            (hand,) = store.completed_hands(match.match_id)
            assert hand.deal_id not in stored
            stored[hand.deal_id] = hand
        assert set(stored) == {h["_match_id"] for h in hands}
        for logged in hands:
            hand = stored[logged["_match_id"]]
            assert [s.bot for s in hand.seats] == logged["players"]
            assert [s.final_stack_chips for s in hand.seats] == logged["finishing_stacks"]
    finally:
        store.close()


def check_places_follow_eliminations(event: dict[str, Any]) -> None:
    outs = sorted(event["eliminations"], key=lambda e: e["round"])
    for earlier, later in itertools.pairwise(outs):
        if later["round"] > earlier["round"]:
            assert later["place"] < earlier["place"]
        else:  # out in the same hand: the one with more chips at its start ranks higher
            assert (later["place"] < earlier["place"]) == (
                later["chips_at_hand_start"] > earlier["chips_at_hand_start"])


def check_ranking(places: list[int], first: int) -> None:
    """Places from ``first`` on, equal players sharing the better place (1, 2, 2, 4, ...)."""
    ordered = sorted(places)
    for k, place in enumerate(ordered):
        assert place == first + k or (k and place == ordered[k - 1]), ordered


def check_placings_in_store(path: Path, doc: dict[str, Any], hands: list[dict[str, Any]]) -> None:
    """The store's placings table says what results.json says: the standings ("overall"), each
    tournament's places, the tie-breaks, and for each bot out the hand that put it out."""
    store = SqliteStore(path)
    try:
        (league,) = store.list_leagues()
        rows = store.tournament_placings(league.league_id)
    finally:
        store.close()
    by: dict[str, dict[str, TournamentPlacing]] = {}
    for row in rows:
        by.setdefault(row.tournament, {})[row.bot] = row
    assert {b: (r.place, r.points) for b, r in by["overall"].items()} == {
        s["player"]: (s["place"], s["points"]) for s in doc["standings"]}
    events = {e["event"]: e for e in doc["events"]}
    logged = {h["_match_id"]: h for h in hands}
    for t in range(1, len(doc["standings"][0]["placings"]) + 1):
        for s in doc["standings"]:
            row = by[f"t{t}"][s["player"]]
            assert row.place == row.points == s["placings"][t - 1]
            if row.eliminated_at_hand is None:  # won its table: the final's or the losers'
                assert row.place in (1, len(events[f"t{t}-final"]["players"]) + 1)
                continue
            hand = logged[row.eliminated_at_hand]  # a stored hand, the bot's last in it
            assert hand["_event"].startswith(f"t{t}-")
            assert hand["finishing_stacks"][hand["players"].index(s["player"])] == 0
    for tie in doc["tie_breaks"]:
        assert {b: r.place for b, r in by[tie["event"]].items()} == {
            p: 1 if p == tie["winner"] else 2 for p in tie["players"]}


def check_places_told(record: Path, doc: dict[str, Any]) -> None:
    """`MatchEnded` told each bot of each tournament hand its place in the event when the hand
    decided it (the bot went out, or won the event) and 0 otherwise."""
    decided: dict[tuple[str, str], int] = {}
    for event in doc["events"]:
        for out in event["eliminations"]:
            decided[(out["player"], f"{event['event']}-t{out['table']}-h{out['hand']}")] = (
                out["place"])
    told = [json.loads(line) for line in record.read_text().splitlines()]
    for event in doc["events"]:  # one table each (seed 003): the winner's is the last hand
        for player, place in event["places"].items():
            if not any(e["player"] == player for e in event["eliminations"]):
                hands = [t["hand"] for t in told if t["hand"].startswith(f"{event['event']}-t1-h")
                         and t["bot"] == player and not t["aborted"]]
                decided[(player, max(hands, key=lambda h: int(h.rsplit("-h", 1)[1])))] = place
    counted = [line for line in told if not line["aborted"]]
    assert len({(t["bot"], t["hand"]) for t in counted}) == len(counted) > 100
    assert {(t["bot"], t["hand"]) for t in counted} >= set(decided)
    for line in counted:
        assert line["places"] == [decided.get((line["bot"], line["hand"]), 0)], line


@pytest.mark.parametrize("command", [("tournament", "run"), ("league", "run")])
def test_seed_003_preset_over_grpc_with_bots_as_processes(tmp_path: Path,
                                                           command: tuple[str, str]) -> None:
    """Seed 003 with 12 bots playing no-limit hold'em: run as a tournament file, or as a league
    file whose format is "seed-003" (its store is then league.sqlite)."""
    names = [f"bot{k:02d}" for k in range(12)]
    path = write_tournament(tmp_path, names, body="""
name = "seed 003"
format = "seed-003"
seed = 11
start_timeout_seconds = 120
metrics_port = 0
[levels]
small_blind = 1
big_blind = 2
hands = 4
[tie_break_levels]
small_blind = 1
big_blind = 2
hands = 3
[rules]
decision_seconds = 5.0
""")
    record = tmp_path / "places.jsonl"
    proc = TournamentProcess(path, names, command=command, packs=4, record=record)
    code, output = proc.wait()
    assert code == 0, output
    assert proc.metrics_url is not None
    log_dir = tmp_path / "logs"
    doc = json.loads((log_dir / "results.json").read_text())
    events = {e["event"]: e for e in doc["events"]}
    hands = hands_by_event(log_dir)
    every_hand = [h for hs in hands.values() for h in hs]
    assert {h["variant"] for h in every_hand} == {"NT"}  # seed 003 §1: no-limit hold'em
    for t in (1, 2):
        prelims = [events[f"t{t}-table1"], events[f"t{t}-table2"]]
        final, losers = events[f"t{t}-final"], events[f"t{t}-losers"]
        assert sorted(len(e["players"]) for e in prelims) == [6, 6]
        assert sorted(p for e in prelims for p in e["players"]) == names
        survivors = {s["player"]: s["chips"] for e in prelims for s in e["survivors"]}
        for event in prelims:
            ended = check_chips_carried(hands[event["event"]], dict.fromkeys(event["players"], 390))
            assert {p: c for p, c in ended.items() if c} == {
                s["player"]: s["chips"] for s in event["survivors"]}
            assert len(event["survivors"]) <= 3  # the last three go on (fewer after a double bust)
            check_places_follow_eliminations(event)
        # The last three of each table move to the final table with their chips ...
        assert dict(zip(final["players"], final["starting_stacks"], strict=True)) == survivors
        check_chips_carried(hands[final["event"]], survivors)
        # ... the eliminated restart at the losers' table with a fresh stack.
        out = sorted(e["player"] for ev in prelims for e in ev["eliminations"])
        assert sorted(losers["players"]) == out and set(losers["starting_stacks"]) == {390}
        check_chips_carried(hands[losers["event"]], dict.fromkeys(losers["players"], 390))
        check_ranking(list(final["places"].values()), 1)
        check_ranking(list(losers["places"].values()), len(survivors) + 1)
        assert len(final["places"]) + len(losers["places"]) == 12
        check_places_follow_eliminations(final)
        check_places_follow_eliminations(losers)
    standings = doc["standings"]
    assert [s["place"] for s in standings] == list(range(1, 13))
    for s in standings:
        t1 = {**events["t1-final"]["places"], **events["t1-losers"]["places"]}[s["player"]]
        t2 = {**events["t2-final"]["places"], **events["t2-losers"]["places"]}[s["player"]]
        assert s["placings"] == [t1, t2] and s["points"] == t1 + t2
    points = [s["points"] for s in standings]
    assert points == sorted(points)
    assert doc["tie_breaks"], "this seed has bots with equal sums of placings"
    played = {frozenset(t["players"]): t["winner"] for t in doc["tie_breaks"]}
    for a, b in itertools.pairwise(standings):
        if a["points"] == b["points"]:  # a tie on total placings: settled heads-up
            assert played[frozenset((a["player"], b["player"]))] == a["player"]
            assert f"tie-break heads-up {a['player']} v {b['player']}" in {
                e["title"] for e in doc["events"]} or f"tie-break heads-up {b['player']} v " \
                f"{a['player']}" in {e["title"] for e in doc["events"]}
    for tie in doc["tie_breaks"]:
        hu = events[tie["event"]]
        assert sorted(hu["players"]) == sorted(tie["players"])
        assert set(hu["starting_stacks"]) == {215}
        check_chips_carried(hands[tie["event"]], dict.fromkeys(hu["players"], 215))
    check_places_told(record, doc)
    assert f"    1  {standings[0]['player']}" in output  # the standings table is printed
    store = tmp_path / ("tournament.sqlite" if command[0] == "tournament" else "league.sqlite")
    check_store(store, every_hand)
    check_placings_in_store(store, doc, every_hand)
    # The standings and the leaderboard read the store (results.json may be gone).
    (log_dir / "results.json").unlink()
    board = "leaderboard" if command[0] == "league" else "tournament standings"
    shown = subprocess.run([sys.executable, "-m", "arena.cli", *board.split(), str(path),
                            "--format", "json"], cwd=tmp_path, env=env(), capture_output=True,
                           text=True, timeout=60, check=True)
    from_store = json.loads(shown.stdout)
    assert from_store["standings"] == standings and from_store["tie_breaks"] == [
        {**t, "players": sorted(t["players"], key=lambda p: p != t["winner"])}
        for t in doc["tie_breaks"]]
    if command[0] == "league":  # `league status` of a tournament league: its standings
        status = subprocess.run([sys.executable, "-m", "arena.cli", "league", "status", str(path)],
                                cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=60,
                                check=True)
        for s in standings:
            assert re.search(rf"^ +{s['place']}  {s['player']} ", status.stdout, re.M), status.stdout
    check_web(path, "--league" if command[0] == "league" else "--tournament", standings,
              every_hand)


def check_web(path: Path, option: str, standings: list[dict[str, Any]],
              hands: list[dict[str, Any]]) -> None:
    """`arena web` serves the ended tournament: its standings, its tables and every hand with
    the cards of the log (revealed: the tournament is over)."""
    web = subprocess.Popen([sys.executable, "-m", "arena.cli", "web", option, str(path),
                            "--port", "0"], cwd=path.parent, env=env(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        assert web.stdout is not None
        line = web.stdout.readline()
        match = re.search(r"web: (http://\S+)", line)
        assert match, line + web.stderr.read()  # type: ignore[union-attr]
        base = match.group(1)

        def get(page: str) -> str:
            with urllib.request.urlopen(base + page, timeout=30) as response:
                return str(response.read().decode("utf-8"))

        index = get("")
        for s in standings:
            assert f"<tr><td>{s['place']}</td><td>{s['player']}</td><td>{s['points']}</td>" in index
        tables = re.findall(r'href="/table/([^"]+)"', index)
        assert sorted(tables) == sorted({f"{h['_event']}-t{h['_table']}" for h in hands})
        table_page = get(f"table/{tables[0]}")
        by_id = {h["_hand_id"]: h for h in hands}
        listed = re.findall(r'href="/hand/([^"]+)"', table_page)
        assert listed and set(listed) <= set(by_id)
        for hand_id in (listed[0], listed[-1], *re.findall(r'href="/hand/([^"]+)"', index)[:3]):
            data = json.loads(get(f"api/hand/{hand_id}.json"))
            assert data["revealed"] is True and data["players"] == by_id[hand_id]["players"]
            assert data["net_chips"] == [f - s for f, s in zip(
                by_id[hand_id]["finishing_stacks"], by_id[hand_id]["starting_stacks"], strict=True)]
        assert json.loads(get("api/standings.json"))["standings"] == standings
    finally:
        web.terminate()
        web.communicate(timeout=30)


def test_27_bot_horse_multi_table_freezeout_over_grpc(tmp_path: Path) -> None:
    names = [f"b{k:02d}" for k in range(27)]
    path = write_tournament(tmp_path, names, body="""
name = "horse 27"
format = "freezeout"
seed = 4
seats_per_table = 8
starting_stack = 600
start_timeout_seconds = 120
metrics_port = 0
[levels]
small_blind = 10
big_blind = 20
ante = 3
bring_in = 5
hands = 3
[rules]
decision_seconds = 5.0
""")
    proc = TournamentProcess(path, names, packs=3)
    line = proc.read_line(r"out in place")
    assert "freezeout" in line
    assert proc.metrics_url is not None
    with urllib.request.urlopen(proc.metrics_url, timeout=10) as response:
        families = {f.name: f for f in text_string_to_metric_families(response.read().decode())}
    assert families["arena_tournament_players_left"].samples[0].value < 27
    assert families["arena_tournament_tables"].samples[0].value >= 3
    code, output = proc.wait()
    assert code == 0, output
    log_dir = tmp_path / "logs"
    doc = json.loads((log_dir / "results.json").read_text())
    (event,) = doc["events"]
    assert sorted(s["place"] for s in doc["standings"]) == list(range(1, 28))
    check_places_follow_eliminations(event)
    hands = hands_by_event(log_dir)["freezeout"]
    chips = check_chips_carried(hands, dict.fromkeys(names, 600))
    assert sorted(chips.values())[-1] == 27 * 600
    assert {h["variant"] for h in hands} == {"FT", "FO/8", "FR", "F7S", "F7S/8"}
    # Balancing: in every round the tables are within one player; nobody sits twice.
    by_round: dict[int, list[list[str]]] = {}
    for hand in hands:
        by_round.setdefault(hand["_round"], []).append(hand["players"])
    for tables in by_round.values():
        sizes = [len(t) for t in tables]
        seated = [p for t in tables for p in t]
        assert len(seated) == len(set(seated)) and max(sizes) - min(sizes) <= 1
    assert len(by_round[1]) == 4 and len(by_round[max(by_round)]) == 1  # 4 tables, a final one
    moves = event["moves"]
    assert any(m["reason"] == "break" for m in moves)
    # A moved bot is the big blind of its next hand (PHH order: the big blind is 2nd, or 1st
    # heads-up), unless a later arrival at the same table in the same round went first.
    for rnd, group in itertools.groupby(moves, key=lambda m: m["round"]):
        last = {m["to_table"]: m["player"] for m in group}
        for hand in hands:
            if hand["_round"] == rnd + 1 and hand["_table"] in last:
                order = hand["players"]
                assert (order[0] if len(order) == 2 else order[1]) == last[hand["_table"]]
