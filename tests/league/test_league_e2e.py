"""Leagues end to end: `arena league run` and example bots as processes over gRPC, with SQLite."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections import defaultdict
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from arena.engine.errors import ConfigError
from arena.league.config import league_from_mapping, load_league
from arena.league.luck import luck_of_log_file
from arena.league.runner import LeagueRun
from arena.league.stats import Leaderboard
from arena.server.eventrecord import read_events
from arena.storage.store import SqliteStore
from tests.server.procs import env

ROOT = Path(__file__).resolve().parents[2]


# The luck adjustment's Monte Carlo runouts for a league whose test checks its faults, not its
# luck: the coordinator computes every hand's luck as it ends, 400 runouts per chance event by
# default, about 20 s of CPU for 2,400 hands here (events with few runouts stay exact).
FAULT_LEAGUE_LUCK_SAMPLES = 1


def write_league(tmp: Path, bots: list[tuple[str, str]], *, rules: str = "",
                 **top: object) -> Path:
    settings: dict[str, object] = {
        "name": "t", "format": "round_robin", "seats_per_table": 2, "hands_per_match": 10,
        "duplicate": True, "tables_at_once": 4, "seed": 5, "listen": "127.0.0.1:0",
        "store": "league.sqlite", "log_dir": "logs", "start_timeout_seconds": 20,
    }
    settings.update(top)
    lines = []
    for key, value in settings.items():
        text = (str(value).lower() if isinstance(value, bool)
                else f'"{value}"' if isinstance(value, str) else str(value))
        lines.append(f"{key} = {text}")
    lines += ["[rules]", "decision_seconds = 2.0", "time_bank_seconds = 5.0", rules]
    for name, _kind in bots:
        lines += ["[[bots]]", f'name = "{name}"', f'token = "token-{name}-0001"']
    path = tmp / "league.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


class LeagueProcess:
    """The league server and its bots as processes."""

    def __init__(self, league: Path, bots: list[tuple[str, str]]) -> None:
        self.league = league
        self.bots = bots
        self.server = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "league", "run", str(league)],
            cwd=league.parent, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.server.stdout is not None
        self.lines: list[str] = []
        self.metrics_url = None
        address = None
        for line in self.server.stdout:
            self.lines.append(line)
            if m := re.search(r"metrics: (\S+)", line):
                self.metrics_url = m.group(1)
            if m := re.search(r"listening on (\S+);", line):
                address = m.group(1)
                break
        assert address is not None, "".join(self.lines) + self.server.stderr.read()  # type: ignore[union-attr]
        self.procs = [subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "bot", kind, "--server", address,
             "--token", f"token-{name}-0001", "--name", name, "--seed", "1",
             "--reconnect-seconds", "2"],
            cwd=ROOT, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for name, kind in bots]

    def wait(self, timeout: float = 120) -> tuple[int, str]:
        out, err = self.server.communicate(timeout=timeout)
        self.stop_bots()
        return self.server.returncode, "".join(self.lines) + out + err

    def stop_bots(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def phh_tables(log_dir: Path) -> list[dict[str, object]]:
    hands = []
    for path in sorted(log_dir.glob("*.phhs")):
        if path.name.endswith(".void.phhs"):
            continue
        hands += list(tomllib.loads(path.read_text()).values())
    return hands


def test_league_end_to_end_leaderboard_agrees_with_the_logs(tmp_path: Path) -> None:
    """A round robin of three bots: store, PHH logs and leaderboard agree; chips conserved."""
    bots = [("alpha", "rules"), ("beta", "call"), ("gamma", "random")]
    league = write_league(tmp_path, bots)
    code, output = LeagueProcess(league, bots).wait()
    assert code == 0, output
    assert "Rankings" in output and "instant run-off" in output
    hands = phh_tables(tmp_path / "logs")
    assert len(hands) == 3 * 2 * 10  # 3 pairs, 2 duplicate copies, 10 hands
    # The leaderboard recomputed independently from the PHH logs.
    chips: dict[tuple[str, str], int] = defaultdict(int)
    for hand in hands:
        start, end = hand["starting_stacks"], hand["finishing_stacks"]
        assert sum(start) == sum(end)  # type: ignore[arg-type]
        for k, name in enumerate(hand["players"]):  # type: ignore[arg-type]
            chips[(name, "all")] += end[k] - start[k]  # type: ignore[index]
            chips[(name, str(hand["variant"]))] += end[k] - start[k]  # type: ignore[index]
    run = LeagueRun(load_league(league))
    try:
        board = run.leaderboard()
    finally:
        run.close()
    for (name, game), total in chips.items():
        assert board.stat(name, game).chips_won == total, (name, game)
    assert sum(chips[(b, "all")] for b, _ in bots) == 0
    _check_luck(tmp_path, league, board, [b for b, _ in bots])
    replay = subprocess.run([sys.executable, "-m", "arena.cli", "replay",
                             *map(str, sorted((tmp_path / "logs").glob("*-c?.phhs")))],
                            env=env(), capture_output=True, text=True, cwd=ROOT)
    assert replay.returncode == 0, replay.stdout
    assert "60 of 60 hands replayed" in replay.stdout
    # The event log: every event as sent to each seat, duplicate copies announced. The
    # example bots take requests and results only: no one else's action or cards is sent to
    # them (their requests hold the state), and a hand ends with its results and public record.
    lines = list(read_events(tmp_path / "logs" / "r1-t1-c2.events.pb"))
    kinds = {kind for line in lines for kind in line["event"] if kind not in (
        "match_id", "hand_id", "sequence", "server_time")}
    assert {"match_started", "duplicate_copy_started", "hand_started", "cards_dealt",
            "hand_ended", "match_ended"} <= kinds
    assert not {"action_taken", "street_ended"} & kinds
    ends = [line["event"]["hand_ended"] for line in lines if "hand_ended" in line["event"]]
    assert ends and all(len(end["results"]) == 2 and end["actions"] for end in ends)
    dealt = [line["event"]["cards_dealt"] | {"seats": line["seats"]} for line in lines
             if "cards_dealt" in line["event"]]
    assert all(re.fullmatch(r"[2-9TJQKA][cdhs]", c)
               for line in dealt for c in line["up_cards"] + line["hole_cards"])
    # A seat's copy holds its own hole cards only.
    for line in dealt:
        if line["hole_cards"]:
            assert line["seats"] == [line["seat"]]
    assert {seat for line in lines for seat in line["seats"]} == {0, 1}
    assert all(isinstance(line["logged_unix_seconds"], float) for line in lines)
    # The rules in MatchStarted: each key's value as JSON text (the wire's map of strings).
    started = next(line for line in lines if "match_started" in line["event"])
    rules = {key: json.loads(value)
             for key, value in started["event"]["match_started"]["rules"].items()}
    assert rules["games"] == ["FT", "FO/8", "FR", "F7S", "F7S/8"] and rules["small_bet"] == 20
    assert rules["decision_seconds"] == 2.0 and rules["reset_stacks"] is True


def _check_luck(tmp_path: Path, league: Path, board: Leaderboard, bots: list[str]) -> None:
    """Every hand of the ended league has its luck in the store, the luck-adjusted estimates
    cover all hands, and the luck recomputed from the match logs is the stored luck."""
    config = load_league(league)
    for bot in bots:
        stat = board.stat(bot)
        assert stat is not None and stat.luck.hands == stat.hands > 0
        assert stat.duplicate_luck.ci_half_width_mbb is not None
    total = sum(s.luck.mean_mbb * s.luck.hands for b in bots if (s := board.stat(b)) is not None)
    assert total == pytest.approx(0.0, abs=1e-6)  # every chance term sums to zero over the seats
    luck: dict[tuple[int, int, int], list[float]] = defaultdict(list)
    names: dict[tuple[int, int, int], list[str]] = defaultdict(list)
    with SqliteStore(config.store) as store:
        found = store.find_league(config.name)
        assert found is not None
        for row in store.iter_results(found.league_id, value_function=config.luck.name):
            assert row.luck_chips is not None
            key = (row.match_id, row.hand_number, row.copy_index)
            luck[key].append(row.luck_chips)
            names[key].append(row.bot)
    by_players = {(tuple(names[key]), key[1]): values for key, values in luck.items()}
    recomputed = 0
    for path in sorted((tmp_path / "logs").glob("*-c?.phhs")):
        for number, players, luck in luck_of_log_file(path, rules=config.rules, settings=config.luck):
            assert list(luck) == by_players[(players, number)]
            recomputed += 1
    assert recomputed == len(by_players) == 60


def test_duplicate_copies_give_each_seats_cards_to_each_bot(tmp_path: Path) -> None:
    """docs/house-rules.md §8 duplicate: with deterministic bots every copy re-deals the same cards to the
    same seats, and the seats rotate, so each bot holds each seat's cards once."""
    bots = [("a", "call"), ("b", "call"), ("c", "call")]
    league = write_league(tmp_path, bots, format="multiway", seats_per_table=3, tables=1,
                          hands_per_match=6)
    code, output = LeagueProcess(league, bots).wait()
    assert code == 0, output
    by_deal: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    seat_cards: dict[str, dict[int, str]] = defaultdict(dict)
    for hand in phh_tables(tmp_path / "logs"):
        deal = str(hand["_deal_id"])
        players = list(hand["players"])  # type: ignore[call-overload]
        seats = list(hand["_seats"])  # type: ignore[call-overload]
        for action in hand["actions"]:  # type: ignore[attr-defined]
            m = re.match(r"d dh p(\d) (\S+)", action)
            if m and int(m.group(1)) <= len(players):
                k = int(m.group(1)) - 1
                first = m.group(2)
                if seats[k] in seat_cards[deal]:
                    if len(first) == len(seat_cards[deal][seats[k]]):
                        assert seat_cards[deal][seats[k]] == first  # same seat, same cards
                else:
                    seat_cards[deal][seats[k]] = first
                by_deal[deal][players[k]].add(str(seats[k]))
    assert len(by_deal) == 6
    for deal, seats_by_bot in by_deal.items():
        for bot in ("a", "b", "c"):
            assert seats_by_bot[bot] == {"0", "1", "2"}, (deal, bot, seats_by_bot)


@pytest.mark.parametrize("reset_stacks", [True, False], ids=["cash", "carried-stacks"])
def test_sigkill_mid_league_then_resume(tmp_path: Path, reset_stacks: bool) -> None:
    """docs/house-rules.md §6 misdeal: the dealer is killed; on restart no completed hand is lost or played
    twice, the hand in flight is voided, chips are conserved and the league finishes."""
    bots = [("alpha", "call"), ("beta", "call")]
    league = write_league(tmp_path, bots, hands_per_match=60, duplicate=False,
                          metrics_port=0, rules=f"reset_stacks = {str(reset_stacks).lower()}")
    first = LeagueProcess(league, bots)
    store_path = tmp_path / "league.sqlite"
    deadline = time.monotonic() + 60
    done = 0
    while time.monotonic() < deadline and done < 15:
        time.sleep(0.2)
        if store_path.exists():
            with SqliteStore(store_path) as store:
                matches = store.list_matches(1) if store.list_leagues() else []
                done = sum(len(store.completed_hands(m.match_id)) for m in matches)
    assert done >= 15, "the league did not get going"
    # /metrics is up while the league runs.
    assert first.metrics_url is not None
    text = urllib.request.urlopen(first.metrics_url, timeout=5).read().decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert families["arena_hands"].type == "counter"
    assert families["arena_decision_think_seconds"].type == "histogram"
    assert sum(s.value for s in families["arena_hands"].samples
               if s.name == "arena_hands_total") >= 15
    os.kill(first.server.pid, signal.SIGKILL)
    first.server.wait(timeout=10)
    first.stop_bots()
    with SqliteStore(store_path) as store:
        before = {(h.match_id, h.hand_number) for h in store.completed_hands(1)}
    second = LeagueProcess(league, bots)
    code, output = second.wait()
    assert code == 0, output
    with SqliteStore(store_path) as store:
        hands = store.completed_hands(1)
        voids = store.void_hands(1)
        numbers = [h.hand_number for h in hands]
        assert len(numbers) == len(set(numbers))  # nothing recorded twice
        assert before <= {(h.match_id, h.hand_number) for h in hands}  # nothing lost
        assert len(voids) <= 1
        assert sorted(numbers + [v.hand_number for v in voids]) == list(range(1, 61))
        for hand in hands:
            assert sum(s.net_chips for s in hand.seats) == 0
        assert all(v.reason.startswith("misdeal") for v in voids)
    status = subprocess.run([sys.executable, "-m", "arena.cli", "league", "status", str(league)],
                            cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=60)
    assert f"{len(hands)} of 60 hands played, {len(voids)} void (misdeals" in status.stdout, status.stdout
    logged = tomllib.loads((tmp_path / "logs" / "r1-t1.phhs").read_text())
    assert len(logged) == len(hands)
    # Issue 7: the event log's sequence numbers go on across the resume (they restarted at 1).
    lines = list(read_events(tmp_path / "logs" / "r1-t1.events.pb"))
    sequences = [int(line["event"]["sequence"]) for line in lines if "event" in line]
    assert sequences == sorted(sequences) and sequences[-1] > len(lines) // 2
    # A kill between a hand's commit and its log lines: the resume restored its PHH text from
    # the store and says so in the event log (its events may be missing).
    gaps = [line["gap"] for line in lines if "event" not in line]
    restored = [hand_id for gap in gaps for hand_id in gap["hand_ids"]]
    assert set(restored) <= {h["_hand_id"] for h in logged.values()}
    if not reset_stacks:
        # Carried stacks continue across the restart: each hand starts where the last ended.
        by_number = sorted(logged.values(), key=lambda h: h["_hand"])
        for before_hand, after_hand in itertools.pairwise(by_number):
            ends = dict(zip(before_hand["_seats"], before_hand["finishing_stacks"], strict=True))
            starts = dict(zip(after_hand["_seats"], after_hand["starting_stacks"], strict=True))
            assert starts == {s: v for s, v in ends.items() if v > 0}
        assert sum(by_number[-1]["finishing_stacks"]) == 2 * 2000


@pytest.mark.no_dealer
def test_bad_league_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown key"):
        league_from_mapping({"name": "x", "bots": [], "formatt": "x"})
    with pytest.raises(ConfigError, match="at least two bots"):
        league_from_mapping({"name": "x", "bots": [{"name": "a", "token": "aaaaaaaa"}]})
    with pytest.raises(ConfigError,
                       match=r"'format' must be one of 'round_robin', 'multiway', 'gauntlet', got 'swiss'"):
        league_from_mapping({"format": "swiss", "bots": [
            {"name": "a", "token": "aaaaaaaa"}, {"name": "b", "token": "bbbbbbbb"}]})
    path = tmp_path / "bad.toml"
    path.write_text("name = [")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_league(path)


@pytest.mark.no_dealer
def test_changed_bot_token_is_refused(tmp_path: Path) -> None:
    """A bot keeps its token for the whole league: a different one is an unknown token."""
    bots = [("alpha", "call"), ("beta", "call")]
    league = write_league(tmp_path, bots)
    run = LeagueRun(load_league(league))
    run.prepare()
    run.close()
    league.write_text(league.read_text().replace("token-beta-0001", "token-beta-9999"))
    run = LeagueRun(load_league(league))
    try:
        with pytest.raises(ConfigError, match="token differs"):
            run.prepare()
    finally:
        run.close()
