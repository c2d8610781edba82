"""The hand replayer in headless Chromium with issue 42's games: a 2-7 triple draw hand shows each
exchange as it happened (the cards that went, the cards that came, the new cards marked in the
seat), a wild-card stud hand marks its wild cards (docs/house-rules.md §21, §23, §26), and the
pages name the new games."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from arena.engine.phh import dumps_hands
from arena.host.phhfile import load_file
from arena.match.simulate import simulate
from tests.server.procs import env
from tests.web.conftest import ARTIFACTS
from tests.web.test_browser import _get

GAMES = {"F2L3D": "r1-t1-c1", "F7SW": "r1-t1-c2"}
POLICY = {"F2L3D": "random", "F7SW": "call"}  # random draws cards; calling reaches showdowns


@pytest.fixture(scope="module")
def web_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`arena web` (a real server on loopback) over a league whose log holds simulated hands of
    the two games, as finished matches."""
    tmp = tmp_path_factory.mktemp("web-new-games")
    league = tmp / "league.toml"
    league.write_text('name = "new games"\nformat = "round_robin"\nhands_per_match = 12\n'
                      'log_dir = "logs"\nstore = "league.sqlite"\nseed = 3\n[[bots]]\nname = "alpha"\n'
                      'token = "alpha-token-1"\n[[bots]]\nname = "beta"\ntoken = "beta-token-12"\n'
                      '[[bots]]\nname = "gamma"\ntoken = "gamma-token-123"\n', encoding="utf-8")
    logs = tmp / "logs"
    logs.mkdir()
    for game, match_id in GAMES.items():
        out = tmp / game
        simulate(game=game, players=3, hands=12, seed=4, out_dir=str(out), policy=POLICY[game])
        fields = []
        for k, hand in enumerate(load_file(str(out / "hands.phhs"))):
            f = dict(hand.fields)
            f.update(players=["alpha", "beta", "gamma"], _match_id=match_id,
                     _hand_id=f"{match_id}-h{k + 1}", _hand=k + 1,
                     _deal_id=f"r1-t1/deal-{k + 1}", _seats=[0, 1, 2])
            fields.append(f)
        (logs / f"{match_id}.phhs").write_text(dumps_hands(fields), encoding="utf-8")
        (logs / f"{match_id}.result.json").write_text(json.dumps({"match_seed": 5, "results": []}))
    web = subprocess.Popen([sys.executable, "-m", "arena.cli", "web", "--league", str(league),
                            "--port", "0"], cwd=tmp, env=env(), stdout=subprocess.PIPE, text=True)
    assert web.stdout is not None
    first = web.stdout.readline()
    found = re.match(r"web: (\S+)", first)
    assert found, first
    try:
        yield found.group(1)
    finally:
        web.terminate()
        web.wait(timeout=10)


def _hands(url: str, match_id: str) -> list[dict[str, Any]]:
    out = []
    for k in range(1, 13):
        status, body = _get(f"{url}api/hand/{match_id}-h{k}.json")
        assert status == 200, body
        out.append(json.loads(body))
    return out


def test_triple_draw_exchanges_are_shown_as_they_happened(web_url: str, browser: Any) -> None:
    """§26: at each exchange step the replayer shows the cards given up and the cards drawn for
    them (a PHH `sd` line and the round's `d dh` line), and the seat holds the new cards, marked."""
    hands = _hands(web_url, GAMES["F2L3D"])
    hand_json = next(h for h in hands if sum(s["kind"] == "exchange" and bool(s["exchange"]["gave"])
                                             for s in h["steps"]) >= 2)
    hand_id = hand_json["hand_id"]
    actions = hand_json_actions(web_url, hand_id)
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{web_url}hand/{hand_id}")
    assert "Fixed-limit 2-7 Triple Draw" in page.locator(".replayer-head").inner_text()
    checked = 0
    for index, step in enumerate(hand_json["steps"]):
        if step["kind"] != "exchange" or not step["exchange"]["gave"]:
            continue
        page.click(".replayer button.first")
        for _ in range(index):
            page.click(".replayer button.step")
        assert int(page.get_attribute(".replayer", "data-step") or -1) == step["a"]
        seat = step["exchange"]["seat"]
        codes = "els => els.map(e => e.dataset.card)"
        gave = page.eval_on_selector_all(".replayer .exchange .gave .card", codes)
        got = page.eval_on_selector_all(".replayer .exchange .got .card", codes)
        assert gave == [c for c, _ in step["exchange"]["gave"]] and len(got) == len(gave)
        # The log's own lines: `pN sd CARDS` at this step, the seat's draw in a later `d dh` line.
        assert actions[step["a"] - 1] == f"p{seat + 1} sd {''.join(gave)}"
        assert f"d dh p{seat + 1} {''.join(got)}" in actions[step["a"]:]
        held = page.eval_on_selector_all(
            f".replayer .seat[data-seat='{seat}'] .card",
            "els => els.map(e => [e.dataset.card, e.classList.contains('drawn')])")
        assert sorted(c for c, new in held if new) == sorted(got)
        assert not set(gave) & {c for c, _ in held}
        checked += 1
    assert checked >= 2
    page.screenshot(path=str(ARTIFACTS / "triple-draw-exchange.png"), full_page=True)
    page.close()


def hand_json_actions(url: str, hand_id: str) -> list[str]:
    """The hand's PHH action lines, from the match's log download."""
    match_id = hand_id.rsplit("-h", 1)[0]
    number = int(hand_id.rsplit("-h", 1)[1])
    status, text = _get(f"{url}download/{match_id}/phhs")
    assert status == 200
    import tomllib

    actions: list[str] = tomllib.loads(text)[str(number)]["actions"]
    return actions


def test_wild_cards_are_marked(web_url: str, browser: Any) -> None:
    """§23 (deuces wild by default): every deuce the table shows is marked wild, and the
    showdown's words name the wild cards; the head says which cards are wild."""
    hands = _hands(web_url, GAMES["F7SW"])
    hand_json = next(h for h in hands
                     if any(c.startswith("2") for s in h["showdown"] for c in s["cards"]))
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{web_url}hand/{hand_json['hand_id']}")
    assert "Seven Card Stud, wild cards" in page.locator(".replayer-head").inner_text()
    assert "deuces wild" in page.locator(".replayer-head .wild-text").inner_text()
    page.click(".replayer button.last")
    seen = page.eval_on_selector_all(
        ".replayer .seat .card", "els => els.map(e => [e.dataset.card, e.classList.contains('wild')])")
    assert any(c.startswith("2") for c, _ in seen)
    assert all(wild == c.startswith("2") for c, wild in seen if c != "??")
    shown = page.eval_on_selector_all(
        ".replayer .shown-hand .card", "els => els.map(e => [e.dataset.card, e.classList.contains('wild')])")
    assert shown and all(wild == c.startswith("2") for c, wild in shown)
    words = page.locator(".replayer .shown-hand .hand-name").all_inner_texts()
    deuces = [c for c, _ in shown if c.startswith("2")]
    assert any(re.search(r"\b(one|two|three|four) wild: " + re.escape(d), w)
               for d in deuces for w in words), words
    page.screenshot(path=str(ARTIFACTS / "wild-card-hand.png"), full_page=True)
    page.close()


def test_hand_lists_name_the_new_games(web_url: str) -> None:
    """A match page's hand list gives each hand's game code with its name."""
    for (game, match_id), name in zip(GAMES.items(), ("Fixed-limit 2-7 Triple Draw",
                                                       "Seven Card Stud, wild cards"), strict=True):
        status, body = _get(f"{web_url}match/{match_id}")
        assert status == 200
        assert f'<td class="game" title="{name}">{game}</td>' in body


@pytest.mark.parametrize("game", list(GAMES))
def test_equity_is_shown_in_the_new_games(web_url: str, browser: Any, game: str) -> None:
    """§29: each live seat's equity is shown at every decision of a 2-7 triple draw hand (the
    draws to come played by the luck adjustment's policy) and of a wild-card stud hand, as the
    hand's JSON gives it; a folded seat shows none."""
    hands = _hands(web_url, GAMES[game])
    hand_json = max(hands, key=lambda h: sum(s["kind"] == "decision" for s in h["steps"]))
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{web_url}hand/{hand_json['hand_id']}")
    page.click(".replayer button.first")
    checked = 0
    for index, step in enumerate(hand_json["steps"]):
        if index:
            page.click(".replayer button.step")
        if step["kind"] != "decision":
            assert page.locator(".replayer .seat .equity").count() == 0
            continue
        shown = page.eval_on_selector_all(
            ".replayer .seat", "els => els.map(e => (e.querySelector('.equity') || {}).textContent || '')")
        expected = ["" if e is None else f"equity {100 * e['total']:.1f}%" for e in step["equity"]]
        assert [re.sub(r".*(equity [0-9.]+%).*", r"\1", s) for s in shown] == expected
        assert sum(e["total"] for e in step["equity"] if e is not None) == pytest.approx(1.0)
        checked += 1
    assert checked >= 3
    page.screenshot(path=str(ARTIFACTS / f"equity-{game.lower()}.png"), full_page=True)
    page.close()
