"""A tournament's web pages over hostile logs (Starlette's test client): standings and events,
tables and hands, no mucked card and no log before the tournament has ended (docs/house-rules.md §1),
escaping and paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.engine.phh import dumps_hands
from arena.host.phhfile import load_file
from arena.match.simulate import simulate
from arena.storage.store import TournamentPlacing
from arena.tourney.config import load_tournament
from arena.tourney.store import TournamentStore
from arena.web.tournament import TournamentApp, TournamentSite, table_of

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'
EVENTS = [
    {"kind": "event_started", "event": "freezeout", "title": "freeze-out",
     "players": ["alpha", "beta"], "tables": [{"number": 1, "players": ["alpha", "beta"]}]},
    {"kind": "level", "event": "freezeout", "level": 1, "stakes": "5/10", "game": EVIL},
    {"kind": "round", "event": "freezeout", "round": 6, "eliminations": [
        {"player": "beta", "place": 2, "table": 1, "hand": 6, "round": 6}], "moves": []},
    {"kind": "event_finished", "event": "freezeout", "places": {"alpha": 1, "beta": 2}},
]


@pytest.fixture
def tournament(tmp_path: Path) -> Path:
    path = tmp_path / "tournament.toml"
    path.write_text('name = "cup"\nformat = "freezeout"\nlog_dir = "logs"\nseed = 3\n'
                    'starting_stack = 200\n[levels]\nsmall_blind = 5\nbig_blind = 10\nhands = 3\n'
                    '[[bots]]\nname = "alpha"\ntoken = "alpha-token-1"\n'
                    '[[bots]]\nname = "beta"\ntoken = "beta-token-12"\n', encoding="utf-8")
    simulate(game="horse", players=2, hands=6, seed=9, out_dir=str(tmp_path), policy="random")
    logs = tmp_path / "logs"
    logs.mkdir()
    fields = []
    for k, hand in enumerate(load_file(str(tmp_path / "hands.phhs"))):
        f = dict(hand.fields)
        f.update(players=[EVIL, "beta"], _match_id=f"freezeout-t1-h{k + 1}",
                 _hand_id=f"freezeout-t1-h{k + 1}-h1", _hand=1, _event="freezeout", _table=1,
                 _table_hand=k + 1, _seats=[0, 1])
        fields.append(f)
    (logs / "freezeout-t1.phhs").write_text(dumps_hands(fields), encoding="utf-8")
    lines = [json.dumps(e) for e in EVENTS]
    (logs / "tournament.jsonl").write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    (logs / "results.json").write_text("{}")
    (tmp_path / "secret.txt").write_text("top secret")
    return path


def client_of(path: Path) -> TestClient:
    site = TournamentSite(load_tournament(path), standings_ttl_seconds=0.0)
    return TestClient(TournamentApp(site).starlette())


def end(path: Path) -> None:
    """What the tournament's driver does last: the standings into the results store."""
    config = load_tournament(path)
    store = TournamentStore(config.store, name=config.name, source_toml=config.source_toml,
                            bots=config.bots)
    try:
        store.record_placings([TournamentPlacing("freezeout", "alpha", 1, 1),
                               TournamentPlacing("freezeout", "beta", 2, 2, "freezeout-t1-h6-h1"),
                               TournamentPlacing("overall", "alpha", 1, 1),
                               TournamentPlacing("overall", "beta", 2, 2)])
    finally:
        store.close()


def hidden_cards(data: dict[str, object]) -> list[str]:
    shown = {s["seat"] for s in data["showdown"]}  # type: ignore[attr-defined]
    last = data["steps"][-1]["seats"]  # type: ignore[index]
    return [c for seat, seat_data in enumerate(last) if seat not in shown
            for c, up in seat_data["cards"] if not up]


def test_while_it_runs_no_log_no_standings_and_no_mucked_card(tournament: Path) -> None:
    client = client_of(tournament)
    index = client.get("/")
    assert index.status_code == 200 and "Still running" in index.text
    assert 'href="/table/freezeout-t1"' in index.text
    assert 'href="/hand/freezeout-t1-h6-h1"' in index.text  # beta's elimination
    for path in ["/download/freezeout-t1.phhs", "/download/results.json",
                 "/download/tournament.jsonl", "/api/standings.json"]:
        assert client.get(path).status_code == 404, path
    folded = [h for h in range(1, 7) if hidden_cards(client.get(
        f"/api/hand/freezeout-t1-h{h}-h1.json").json()) != []]
    assert folded, "a random bot folds a hand in six"
    for h in folded:
        data = client.get(f"/api/hand/freezeout-t1-h{h}-h1.json").json()
        assert data["revealed"] is False and set(hidden_cards(data)) == {"??"}
        assert "still running" in client.get(f"/hand/freezeout-t1-h{h}-h1").text


def test_after_the_end_standings_logs_and_every_card(tournament: Path) -> None:
    client = client_of(tournament)
    end(tournament)
    index = client.get("/").text
    assert "<tr><td>1</td><td>alpha</td><td>1</td></tr>" in index
    assert "<tr><td>2</td><td>beta</td><td>2</td></tr>" in index
    assert client.get("/api/standings.json").json()["standings"][0]["player"] == "alpha"
    log = client.get("/download/freezeout-t1.phhs")
    assert log.status_code == 200 and log.text == (tournament.parent / "logs" /
                                                   "freezeout-t1.phhs").read_text()
    for h in range(1, 7):
        data = client.get(f"/api/hand/freezeout-t1-h{h}-h1.json").json()
        assert data["revealed"] is True and "??" not in hidden_cards(data)
    table = client.get("/table/freezeout-t1").text
    assert table.count('class="hand"') == 6 and "arena replay --show freezeout-t1.phhs" in table


def test_hostile_names_are_escaped_and_a_bad_event_line_is_skipped(tournament: Path) -> None:
    client = client_of(tournament)
    for path in ["/", "/table/freezeout-t1", "/hand/freezeout-t1-h1-h1"]:
        response = client.get(path)
        assert response.status_code == 200, path
        assert "<script>alert" not in response.text and "<img" not in response.text, path
        assert "default-src 'self'" in response.headers["content-security-policy"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in client.get("/table/freezeout-t1").text
    assert "level 1: 5/10" in client.get("/").text


@pytest.mark.parametrize("path", ["/download/..%2Fsecret.txt", "/download/..%2F..%2Fsecret",
                                  "/download/state.json", "/table/..%2Fsecret",
                                  "/hand/..%2Fsecret-t1-h1-h1", "/hand/freezeout-t1-h99-h1",
                                  "/table/%2e%2e", "/static/..%2F..%2Fsecret.txt",
                                  "/api/hand/freezeout-t1.json"])
def test_urls_never_reach_outside_the_log_directory(tournament: Path, path: str) -> None:
    client = client_of(tournament)
    end(tournament)  # even after the end
    response = client.get(path)
    assert response.status_code == 404
    assert "top secret" not in response.text


def test_hand_ids_name_their_table() -> None:
    assert table_of("t1-final-t1-h12-h1") == "t1-final-t1"
    assert table_of("tie4-2-t1-h3-h1") == "tie4-2-t1"
