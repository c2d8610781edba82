"""The live tables page in headless Chromium with issue 42's games: a real web server with its
spectator hub, fed the events a dealer's feed makes for an English Stud hand stopped just after
an up card was exchanged (shown by name, old and new: docs/house-rules.md §25, §26) and a
wild-card stud hand played to its showdown (the wild cards marked, §23)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from arena.engine.actions import ActionKind
from arena.engine.cards import format_card
from arena.engine.games import variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.league.config import load_league
from arena.match import messages as m
from arena.match.feed import HandFeed, Private
from arena.web.server import WebServer
from tests.match.test_seat_views import _context
from tests.web.conftest import ARTIFACTS
from tests.web.test_live import _seat


def _notices(match_id: str, state: HandState, play: Any) -> list[m.Notice]:
    """The match's start, then every event the feed makes while ``play`` acts, as the hub is
    told them (a seat's private event in the copy the other seats get)."""
    texts = {k: json.dumps(v) for k, v in Rules().to_mapping().items()
             if isinstance(v, str | bool | int | float)}
    payloads: list[Any] = [m.MatchStarted(
        seats=tuple(_seat(s) for s in range(state.seat_count)), your_seat=-1,
        games=(state.variant.code.value,), hands_per_game=1, total_hands=1, stakes=Rules().stakes,
        starting_stack_chips=2000, decision_seconds=2.0, time_bank_seconds=5.0, rules=texts)]
    feed = HandFeed(state, _context(state, tuple(range(state.seat_count)), state.seat_count),
                    lambda _p: True)
    payloads.append(feed.hand_started(-1))
    while play(state):
        payloads += [i.others if isinstance(i, Private) else i for i in feed.drain()]
    payloads += [i.others if isinstance(i, Private) else i for i in feed.drain()]
    return [m.Notice(match_id=match_id, hand_id=f"{match_id}-h1", sequence=k + 1, unix_seconds=0.0,
                     payload=p) for k, p in enumerate(payloads) if not isinstance(p, m.Prompt)]


def _passive(state: HandState) -> None:
    legal = state.legal_actions()
    kinds = legal.kinds()
    kind = next(k for k in (ActionKind.BRING_IN, ActionKind.CHECK, ActionKind.CALL) if k in kinds)
    state.act(legal.seat, kind)


def english_stud_up_exchange() -> tuple[list[m.Notice], tuple[str, str]]:
    """Seats call along; the first seat to exchange gives up its first up card; the feed stops
    right after that exchange. Returns the notices and (the card given up, the card drawn)."""
    state = HandState(variant_for("FES"), [2000] * 3, seed=4)
    swapped: list[str] = []

    def play(hand: HandState) -> bool:
        if swapped or hand.is_over:
            return False
        legal = hand.legal_actions()
        if legal.can_exchange:
            seat = legal.seat
            up = [c for c, is_up in zip(hand.cards[seat], hand.is_up[seat], strict=True) if is_up]
            event = hand.exchange(seat, up[:1])
            swapped.extend([format_card(event.discarded[0]), format_card(event.drawn[0])])
        else:
            _passive(hand)
        return True

    notices = _notices("live-fes", state, play)
    assert len(swapped) == 2
    return notices, (swapped[0], swapped[1])


def wild_showdown() -> tuple[list[m.Notice], list[str]]:
    """A wild-card stud hand called down to its showdown in which a deuce (wild) is shown."""
    for seed in range(40):
        state = HandState(variant_for("F7SW"), [2000] * 3, seed=seed)

        def play(hand: HandState) -> bool:
            if hand.is_over:
                return False
            _passive(hand)
            return True

        notices = _notices("live-wild", state, play)
        deuces = [format_card(c) for cards in state.cards for c in cards if c >> 2 == 0]
        if deuces:
            return notices, deuces
    raise AssertionError("no deuce dealt in 40 hands")


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[tuple[WebServer, asyncio.AbstractEventLoop]]:
    """`arena league run --web-port`'s web server with its spectator hub, serving on a loop of
    its own thread (the dealer's loop in a league)."""
    tmp = tmp_path_factory.mktemp("live-new-games")
    league = tmp / "league.toml"
    league.write_text('name = "live"\nlog_dir = "logs"\n[[bots]]\nname = "a"\ntoken = "a-token-0001"\n'
                      '[[bots]]\nname = "b"\ntoken = "b-token-0001"\n', encoding="utf-8")
    server = WebServer(load_league(league), live=True)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(server.serve(),), daemon=True)
    thread.start()
    try:
        yield server, loop
    finally:
        loop.call_soon_threadsafe(server.stop)
        thread.join(timeout=20)


def test_live_tables_show_exchanges_and_wild_cards(
        live_server: tuple[WebServer, asyncio.AbstractEventLoop], browser: Any) -> None:
    server, loop = live_server
    hub = server.spectator
    assert hub is not None
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "live")
    exchange_notices, (gave, got) = english_stud_up_exchange()
    wild_notices, deuces = wild_showdown()
    for notice in [*exchange_notices, *wild_notices]:  # on the hub's loop, as a dealer tells it
        loop.call_soon_threadsafe(hub.event_watched, notice)
    fes = ".live-table[data-match='live-fes']"
    page.wait_for_selector(f"{fes} .exchange .got .card", timeout=15_000)
    codes = "els => els.map(e => e.dataset.card)"
    assert page.eval_on_selector_all(f"{fes} .exchange .gave .card", codes) == [gave]
    assert page.eval_on_selector_all(f"{fes} .exchange .got .card", codes) == [got]
    assert "FES · English Stud" in page.locator(f"{fes} h2").inner_text()
    up_cards = page.eval_on_selector_all(f"{fes} .seat .cards .card", codes)
    assert got in up_cards and gave not in up_cards  # the new up card in the old one's place
    wild = ".live-table[data-match='live-wild']"
    page.wait_for_selector(f"{wild} .card.wild", timeout=15_000)
    marked = page.eval_on_selector_all(
        f"{wild} .seat .cards .card", "els => els.map(e => [e.dataset.card, e.classList.contains('wild')])")
    assert {c for c, is_wild in marked if is_wild} == {c for c, _ in marked if c.startswith("2")}
    assert {c for c, _ in marked if c.startswith("2")} <= set(deuces) and any(w for _, w in marked)
    assert "wild: 2" in page.locator(f"{wild} h2").inner_text()
    assert not errors, errors
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "live-new-games.png"), full_page=True)
    page.close()



def test_live_tables_say_who_chose_the_game(
        live_server: tuple[WebServer, asyncio.AbstractEventLoop], browser: Any) -> None:
    """§28: a dealer's-choice match really played (tests/web/test_live_choice.py): while the
    second orbit's chooser is asked, the table says who is choosing (the first orbit's choice
    still shown); then that the chooser timed out and the dealer chose for it."""
    from tests.match.test_dealers_choice_table import choose
    from tests.web.test_live_choice import _told

    server, loop = live_server
    hub = server.spectator
    assert hub is not None
    items = _told({"b0": choose("FR"), "b1": lambda p, n: []}, choice_seconds=1.5)
    asked = [k for k, i in enumerate(items) if isinstance(i, m.Prompt) and i.street == "game choice"]
    changes = [i.payload for i in items if isinstance(i, m.Notice)
               and isinstance(i.payload, m.GameChanged)]
    assert len(asked) == 2 and len(changes) == 2
    names = next([s.name for s in i.payload.seats] for i in items if isinstance(i, m.Notice)
                 and isinstance(i.payload, m.MatchStarted))
    hands = [f"for hands {c.first_hand_number}-{c.first_hand_number + 1}" for c in changes]
    said = [f"{names[c.chooser_seat]} "
            + ("chose" if c.automatic is None else "timed out; the dealer chose")
            + f" {variant_for(c.game).name} ({c.game}) {h}" for c, h in zip(changes, hands, strict=True)]
    assert sorted(c.automatic is None for c in changes) == [False, True]  # one of each
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "live")
    table = ".live-table[data-match='dc']"

    def tell(part: list[m.Notice | m.Prompt]) -> None:
        for item in part:  # on the hub's loop, as a dealer tells it
            told = hub.decision_opened if isinstance(item, m.Prompt) else hub.event_watched
            loop.call_soon_threadsafe(told, item)

    tell(items[:asked[1] + 1])
    page.wait_for_selector(f"{table} .choosing", timeout=15_000)
    assert hands[0] in page.locator(f"{table} .choice").inner_text()
    chooser = items[asked[1]]
    assert isinstance(chooser, m.Prompt)
    assert (f"{names[chooser.seat]} is choosing the next game (from hand 3)"
            in page.locator(f"{table} .choosing").inner_text())
    assert said[0] in page.locator(f"{table} .choice").inner_text()
    tell(items[asked[1] + 1:])
    page.locator(f"{table} .choice").filter(has_text=hands[1]).wait_for(timeout=15_000)
    assert said[1] in page.locator(f"{table} .choice").inner_text()
    assert page.locator(f"{table} .choosing").count() == 0
    assert not errors, errors
    page.screenshot(path=str(ARTIFACTS / "live-dealers-choice.png"), full_page=True)
    page.close()
