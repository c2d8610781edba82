"""The web app over hostile logs (Starlette's test client): escaping, paths, running matches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.engine.phh import dumps_hands
from arena.host.phhfile import load_file
from arena.league.config import load_league
from arena.match.simulate import simulate
from arena.web.app import Pages, WebApp
from arena.web.site import LeagueSite

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    league = tmp_path / "league.toml"
    league.write_text('name = "t"\nformat = "round_robin"\nhands_per_match = 6\nlog_dir = "logs"\n'
                      'store = "league.sqlite"\nseed = 3\n[[bots]]\nname = "alpha"\ntoken = "alpha-token-1"\n'
                      '[[bots]]\nname = "beta"\ntoken = "beta-token-12"\n', encoding="utf-8")
    simulate(game="horse", players=2, hands=6, seed=9, out_dir=str(tmp_path), policy="random")
    hands = load_file(str(tmp_path / "hands.phhs"))
    logs = tmp_path / "logs"
    logs.mkdir()
    for copy in (1, 2):
        match_id = f"r1-t1-c{copy}"
        fields = []
        for k, hand in enumerate(hands):
            f = dict(hand.fields)
            f.update(players=[EVIL, "beta"], _match_id=match_id, _hand_id=f"{match_id}-h{k + 1}",
                     _hand=k + 1, _deal_id=f"r1-t1/deal-{k + 1}", _seats=[0, 1])
            fields.append(f)
        (logs / f"{match_id}.phhs").write_text(dumps_hands(fields), encoding="utf-8")
    (logs / "r1-t1-c1.result.json").write_text(json.dumps({"match_seed": 5, "results": []}))
    (tmp_path / "secret.txt").write_text("top secret")
    return TestClient(WebApp(LeagueSite(load_league(league))).starlette())


def test_hostile_names_are_escaped_on_every_page(client: TestClient) -> None:
    for path in ["/", "/match/r1-t1-c1", "/hand/r1-t1-c1-h1", "/deal?id=r1-t1/deal-1",
                 "/bot?name=alpha", "/leaderboard"]:
        response = client.get(path)
        assert response.status_code == 200, path
        assert "<script>alert" not in response.text and "<img" not in response.text, path
        assert "default-src 'self'" in response.headers["content-security-policy"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in client.get("/match/r1-t1-c1").text
    embedded = client.get("/hand/r1-t1-c1-h1").text
    assert "\\u003c/script\\u003e" in embedded


def test_json_in_a_script_element_cannot_close_it() -> None:
    script = Pages(title="t", nav=[]).env.from_string("{{ data|tojson }}")
    text = script.render(data={"name": "</script><script>alert(1)</script><!--", "n": [1.5]})
    assert "<" not in text and ">" not in text
    assert json.loads(text) == {"name": "</script><script>alert(1)</script><!--", "n": [1.5]}
    with pytest.raises(ValueError):  # NaN is no JSON: the page fails rather than the script
        script.render(data=[float("nan")])


@pytest.mark.parametrize("path", ["/download/..%2Fsecret.txt/phhs",
                                  "/download/..%2F..%2Fsecret/phhs",
                                  "/files/..%2Fsecret.txt", "/hand/..%2Fsecret",
                                  "/static/..%2F..%2Fsecret.txt", "/match/%2e%2e",
                                  "/download/r1-t1-c1/..%2Fsecret.txt",
                                  "/deal?id=..%2F..%2Fsecret/deal-1", "/bot?name=..%2Fsecret.txt"])
def test_urls_never_reach_outside_the_log_directory(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert "top secret" not in response.text


def test_a_running_match_serves_neither_logs_nor_hidden_cards(client: TestClient) -> None:
    assert client.get("/download/r1-t1-c2/phhs").status_code == 404
    assert client.get("/download/r1-t1-c2/result").status_code == 404
    assert client.get("/download/r1-t1-c1/phhs").status_code == 200
    running = client.get("/api/hand/r1-t1-c2-h1.json").json()
    finished = client.get("/api/hand/r1-t1-c1-h1.json").json()
    assert running["revealed"] is False and finished["revealed"] is True
    shown = {s["seat"] for s in running["showdown"]}
    hidden = [c for seat, data in enumerate(running["steps"][-1]["seats"]) if seat not in shown
              for c, up in data["cards"] if not up]
    assert hidden and set(hidden) == {"??"}


def test_a_half_written_log_shows_its_complete_hands(client: TestClient, tmp_path: Path) -> None:
    path = tmp_path / "logs" / "r1-t1-c2.phhs"
    path.write_text(path.read_text() + "\n[7]\nvariant = 'FT'\nactions = ['d dh p1", encoding="utf-8")
    page = client.get("/match/r1-t1-c2")
    assert page.status_code == 200 and "r1-t1-c2-h6" in page.text
