"""Per-game keys of the leaderboard page and the Prometheus metrics for every game the arena deals,
issue 42's included (2-7 triple draw, London Lowball, wild-card stud, Low Hole, English Stud):
each code has its board, its label, its name and its metric series."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.engine.games import ALL_GAMES, ALL_VARIANTS, ENGINE_VARIANTS
from arena.league.config import load_league
from arena.league.leaderboard import game_label
from arena.league.stats import GAME_KEYS, compute_leaderboard
from arena.metrics import GAME_LABELS, ArenaMetrics, MetricsServer
from arena.storage.records import ResultRow
from arena.web.app import WebApp, game_name
from arena.web.site import LeagueSite
from tests.league.test_metrics import metrics, scrape, server, value

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass

__all__ = ["metrics", "server"]  # the fixtures, used by name

NEW_GAMES = sorted(ENGINE_VARIANTS)


def test_every_game_has_a_key_a_label_and_a_name() -> None:
    assert set(NEW_GAMES) == {"F2L3D", "FLL", "F7SW", "F7SWL", "F7SW/8", "FLH", "FLH/8", "FES"}
    assert GAME_KEYS == GAME_LABELS == (*ALL_VARIANTS, ALL_GAMES)
    letters = [v.letter for v in ALL_VARIANTS.values()]
    assert len(set(letters)) == len(letters)  # one letter per game in every label
    for code, variant in ALL_VARIANTS.items():
        assert game_label(code) == f"{variant.letter} {code}"
        assert game_name(code) == variant.name
    assert game_name("F2L3D") == "Fixed-limit 2-7 Triple Draw"
    assert game_name("<bogus>") == "<bogus>"  # an untrusted log's unknown code, as itself


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    bots = "".join(f'[[bots]]\nname = "{name}"\ntoken = "{name}-token-0001"\n' for name in ("x", "y"))
    league = tmp_path / "league.toml"
    league.write_text(f'name = "t"\n{bots}', encoding="utf-8")
    return TestClient(WebApp(LeagueSite(load_league(league))).starlette())


@pytest.mark.parametrize("game", NEW_GAMES)
def test_each_new_game_has_its_leaderboard_page(client: TestClient, game: str) -> None:
    response = client.get("/leaderboard", params={"game": game})
    assert response.status_code == 200, response.text
    assert (f'<a title="{ALL_VARIANTS[game].name}" href="/leaderboard?game={game}" class="current">'
            f'{game_label(game)}</a>') in response.text


def test_new_games_results_reach_the_metrics(metrics: ArenaMetrics, server: MetricsServer) -> None:
    """A leaderboard with hands of every new game: each game's gauges carry its own label (they
    were dropped when the labels held only the arena's eight games)."""
    rows = []
    for k, game in enumerate(NEW_GAMES):
        for i, net in enumerate((20, -10, 30, 0)):
            rows += [ResultRow("alice", game, net, 20, 1, f"d{k}-{i}", 0, (("bob", -net),)),
                     ResultRow("bob", game, -net, 20, 1, f"d{k}-{i}", 0, (("alice", net),))]
    metrics.update_leaderboard(compute_leaderboard(rows))
    families = scrape(server)
    mean = families["arena_leaderboard_mbb_per_hand"]
    assert {s.labels["game"] for s in mean.samples} == {*NEW_GAMES, ALL_GAMES}
    for game in NEW_GAMES:
        assert value(mean, "arena_leaderboard_mbb_per_hand", bot="alice", game=game) == pytest.approx(500.0)
        hands_family = families["arena_leaderboard_hands"]
        assert value(hands_family, "arena_leaderboard_hands", bot="bob", game=game) == 4
        metrics.hand_played(game)
    hands = scrape(server)["arena_hands"]
    for game in NEW_GAMES:
        assert value(hands, "arena_hands_total", game=game) == 1
