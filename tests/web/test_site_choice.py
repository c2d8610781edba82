"""The match and hand pages of a dealer's-choice league (docs/house-rules.md §28): each orbit's
chooser, or that the dealer chose for it, read from the match's event log: real notices
written by the league's own log writer (`EventLog` of `LogRecords`) and read back by the log's
one reader (`read_events`)."""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.engine.phh import dumps_hands
from arena.engine.rules import Rules
from arena.host.phhfile import load_file
from arena.league.config import load_league
from arena.match import messages as m
from arena.match.simulate import simulate
from arena.server.eventrecord import LogRecords, read_events
from arena.storage.eventhold import Held
from arena.storage.eventlog import EventLog
from arena.storage.matchlog import MatchLogPaths
from arena.web.app import WebApp
from arena.web.choice import orbit_choices
from arena.web.site import LeagueSite

EVIL = '<script>alert("x")</script>'


def _record(seq: int, payload: m.Payload, seats: tuple[int, ...] = (0, 1)) -> Held:
    return (m.Notice(match_id="r1-t1", hand_id="", sequence=seq, unix_seconds=1.0,
                     payload=payload), list(seats), 1.0)


def _seat(seat: int, name: str) -> m.SeatInfo:
    return m.SeatInfo(seat=seat, name=name, bot_id=name, stack_chips=2000, bet_chips=0,
                      committed_chips=0, up_cards=(), hole_card_count=0, status=m.SeatStatus.ACTIVE)


def _held() -> list[Held]:
    started = m.MatchStarted(seats=(_seat(0, EVIL), _seat(1, "beta")), your_seat=-1,
                             games=("FT", "F7S"), hands_per_game=2, total_hands=4,
                             stakes=Rules().stakes, starting_stack_chips=2000,
                             decision_seconds=2.0, time_bank_seconds=5.0, rules={})
    first = m.GameChanged(game="FT", previous_game="", first_hand_number=1, dealers_choice=True,
                          chooser_seat=1, automatic=None, hands=2)
    second = m.GameChanged(game="F7S", previous_game="FT", first_hand_number=3,
                           dealers_choice=True, chooser_seat=0, automatic=m.AutoReason.TIMEOUT,
                           hands=2)
    return [_record(1, started, (0,)), _record(2, started, (1,)), _record(3, first),
            _record(40, second, (0,)), _record(40, second, (1,)),  # one record a seat
            _record(80, m.GameChanged(game="FR", previous_game="F7S", first_hand_number=9))]


def _write_log(path: Path) -> None:
    log = EventLog(path, LogRecords())
    log.write(_held())
    log.close()


def _records(tmp_path: Path) -> list[dict[str, Any]]:
    """The log's records as its reader gives them, and records a damaged or hostile log could
    hold (wrong types), which give no choice."""
    path = tmp_path / "x.events.pb"
    _write_log(path)
    return [*read_events(path),
            {"event": {"game_changed": {"dealers_choice": "yes", "first_hand_number": 2}}},
            {"event": {"game_changed": {"dealers_choice": True, "first_hand_number": [5],
                                        "game_code": "FR"}}},
            {"torn_tail": "cut"}]


def test_the_records_give_one_choice_per_orbit_with_its_chooser(tmp_path: Path) -> None:
    choices = orbit_choices(_records(tmp_path))
    assert [(c["first_hand"], c["hands"], c["game"], c["chooser_seat"], c["chooser"],
             c["automatic"]) for c in choices] == [(1, 2, "FT", 1, "beta", None),
                                                   (3, 2, "F7S", 0, EVIL, "timeout")]
    assert choices[0]["text"] == ("dealer's choice: beta chose Fixed-limit Texas Hold'em (FT) "
                                  "for hands 1-2")
    assert choices[1]["text"] == (f"dealer's choice: {EVIL} timed out; the dealer chose "
                                  "Seven Card Stud (F7S) for hands 3-4")


def dealers_choice_league(tmp_path: Path) -> Path:
    """A dealer's-choice league whose match r1-t1 has logged 4 hands (FT, FT, F7S, F7S) and the
    event log of its two choices; the league file's path."""
    league = tmp_path / "league.toml"
    league.write_text('name = "dc"\nformat = "round_robin"\nhands_per_match = 4\nduplicate = false\n'
                      'log_dir = "logs"\nstore = "league.sqlite"\nseed = 3\n[rules]\n'
                      'games = ["FT", "F7S"]\ndealers_choice = true\n[[bots]]\nname = "alpha"\n'
                      'token = "alpha-token-1"\n[[bots]]\nname = "beta"\ntoken = "beta-token-12"\n',
                      encoding="utf-8")
    logs = tmp_path / "logs"
    logs.mkdir()
    fields = []
    for game in ("FT", "F7S"):
        simulate(game=game, players=2, hands=2, seed=9, out_dir=str(tmp_path / game), policy="call")
        for hand in load_file(str(tmp_path / game / "hands.phhs")):
            k = len(fields) + 1
            fields.append({**hand.fields, "players": [EVIL, "beta"], "_match_id": "r1-t1",
                           "_hand_id": f"r1-t1-h{k}", "_hand": k, "_seats": [0, 1]})
    (logs / "r1-t1.phhs").write_text(dumps_hands(fields), encoding="utf-8")
    _write_log(MatchLogPaths.of(logs, "r1-t1").events)
    (logs / "r1-t1.result.json").write_text('{"match_seed": 5, "results": []}', encoding="utf-8")
    return league


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(WebApp(LeagueSite(load_league(dealers_choice_league(tmp_path)))).starlette())


def test_the_match_page_lists_who_chose_each_orbit(client: TestClient) -> None:
    page = client.get("/match/r1-t1")
    assert page.status_code == 200
    assert "<script>alert" not in page.text
    listed = [html.unescape(line) for line in page.text.splitlines() if 'class="choice' in line]
    assert len(listed) == 1  # the list is one line
    assert "dealer's choice: beta chose Fixed-limit Texas Hold'em (FT) for hands 1-2" in listed[0]
    assert (f"dealer's choice: {EVIL} timed out; the dealer chose Seven Card Stud "
            "(F7S) for hands 3-4") in listed[0]
    assert 'class="choice automatic" data-first-hand="3" data-chooser-seat="0"' in page.text


def test_each_hand_carries_the_choice_it_was_dealt_under(client: TestClient) -> None:
    for k, (chooser, automatic) in enumerate([("beta", None)] * 2 + [(EVIL, "timeout")] * 2):
        data = client.get(f"/api/hand/r1-t1-h{k + 1}.json").json()
        assert data["choice"]["chooser"] == chooser and data["choice"]["automatic"] == automatic
        assert data["choice"]["game"] == data["game"]
    page = client.get("/hand/r1-t1-h3").text
    assert "<script>alert" not in page and "timed out; the dealer chose" in page


def test_a_damaged_log_shows_the_choices_before_the_damage(tmp_path: Path) -> None:
    from arena.engine.errors import MalformedInput

    league = tmp_path / "league.toml"
    league.write_text('name = "dc"\nformat = "round_robin"\nhands_per_match = 4\nduplicate = false\n'
                      'log_dir = "logs"\nstore = "league.sqlite"\nseed = 3\n[rules]\n'
                      'games = ["FT", "F7S"]\ndealers_choice = true\n[[bots]]\nname = "alpha"\n'
                      'token = "alpha-token-1"\n[[bots]]\nname = "beta"\ntoken = "beta-token-12"\n',
                      encoding="utf-8")
    (tmp_path / "logs").mkdir()
    MatchLogPaths.of(tmp_path / "logs", "r1-t1").events.write_bytes(b"\x00")

    def reader(path: Path) -> Iterator[Mapping[str, Any]]:
        yield from read_events(logged)
        raise MalformedInput(f"{path}: record 4 is not an event log record")

    logged = tmp_path / "x.events.pb"
    log = EventLog(logged, LogRecords())
    log.write(_held()[:3])
    log.close()

    site = LeagueSite(load_league(league), event_reader=reader)
    assert [c["first_hand"] for c in site.choices("r1-t1")] == [1]
    assert site.choices("no-such-match") == [] and site.choices("../x") == []


def test_a_cut_log_shows_the_choices_before_the_cut(client: TestClient, tmp_path: Path) -> None:
    """A log whose last record is cut short (a crash mid-write): its reader ends the records
    there; the choices before it are shown, the page still served."""
    path = MatchLogPaths.of(tmp_path / "logs", "r1-t1").events
    path.unlink()
    log = EventLog(path, LogRecords())
    log.write(_held()[:4])  # the match's start, the first choice, the second (one copy)
    log.close()
    site = LeagueSite(load_league(tmp_path / "league.toml"))
    assert [c["first_hand"] for c in site.choices("r1-t1")] == [1, 3]
    path.write_bytes(path.read_bytes()[:-3])  # the second choice's record cut short
    assert [c["first_hand"] for c in site.choices("r1-t1")] == [1]
    assert client.get("/match/r1-t1").status_code == 200
