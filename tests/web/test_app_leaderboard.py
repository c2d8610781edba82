"""The leaderboard page's ``game`` parameter (Starlette's test client, the app in-process)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.league.config import load_league
from arena.league.stats import GAME_KEYS
from arena.web.app import WebApp
from arena.web.site import LeagueSite


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    bots = "".join(f'[[bots]]\nname = "{name}"\ntoken = "{name}-token-0001"\n' for name in ("x", "y"))
    league = tmp_path / "league.toml"
    league.write_text(f'name = "t"\n{bots}', encoding="utf-8")
    return TestClient(WebApp(LeagueSite(load_league(league))).starlette())


def test_every_game_key_has_its_board(client: TestClient) -> None:
    for game in GAME_KEYS:
        response = client.get("/leaderboard", params={"game": game})
        assert response.status_code == 200, game
        assert f'href="/leaderboard?game={game}" class="current"' in response.text, game
    assert 'class="current">all</a>' in client.get("/leaderboard").text


@pytest.mark.parametrize("game", ["XX", "", "horse", "ft", "<script>alert(1)</script>"])
def test_an_unknown_game_is_a_bad_request_naming_the_games(client: TestClient, game: str) -> None:
    """`/leaderboard?game=XX` showed the all-games board as if XX were a game."""
    response = client.get("/leaderboard", params={"game": game})
    assert response.status_code == 400, game
    assert "text/html" in response.headers["content-type"]
    assert "<script>alert" not in response.text
    text = html.unescape(response.text)
    assert f"unknown game {game!r}; the games are {', '.join(GAME_KEYS)}" in text, text
    for key in GAME_KEYS:
        assert f'href="/leaderboard?game={key}"' in response.text, key
    assert "default-src 'self'" in response.headers["content-security-policy"]
