"""The SDK's example bots played in-process (no network): each decision is the dealer's real
``DecisionRequest`` handed to the bot function, for benchmarks that need many hands quickly.

Duplicate deals: every deal is played once per rotation of the seats, so each bot holds each
seat's cards once.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.engine.actions import ActionKind
from arena.engine.cards import derive_seed, parse_card
from arena.engine.games import variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.match.clock import DecisionClock
from arena.match.feed import HandFeed
from arena.match.records import HandContext
from arena.match.rotation import engine_order, game_for_hand
from arena.server import convert

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bots" / "python"))

from arena_bot._proto import arena_pb2 as bot_pb
from arena_bot.examples import BOTS
from arena_bot.view import SeatView

BotFunction = Callable[[SeatView], object]


@dataclass(frozen=True, slots=True)
class PlayedDeal:
    """One hand of a duplicate deal: the finished state and the bot of each engine seat."""

    deal: int
    copy: int
    state: HandState
    bots: tuple[str, ...]  # by engine seat
    hand_seed: int


def _act(state: HandState, feed: HandFeed, bot: BotFunction) -> None:
    now = time.monotonic()
    prompt = feed.prompt("d", DecisionClock(opened_at=now, decision_seconds=60.0, bank_seconds=0.0), now,
                         None)
    request = bot_pb.DecisionRequest.FromString(convert.decision_request(prompt).SerializeToString())
    action = bot(SeatView(request))
    kind = ActionKind(action.kind)
    if kind is ActionKind.EXCHANGE:  # docs/house-rules.md §26: the cards named, none to stand pat
        assert state.actor is not None
        state.exchange(state.actor, [parse_card(c) for c in getattr(action, "exchange_cards", ())])
        feed.drain()  # the feed's view of the seat's down cards follows the exchange
        return
    amount = getattr(action, "raise_to_chips", 0) if kind is ActionKind.RAISE else None
    assert state.actor is not None
    state.act(state.actor, kind, amount)


def play_hand(rules: Rules, game: str, seat_bots: list[tuple[str, BotFunction]], *, button: int,
              hand_seed: int, number: int) -> tuple[HandState, tuple[str, ...]]:
    """One hand, every physical seat starting with the starting stack."""
    seats = list(range(len(seat_bots)))
    order = engine_order(button, seats)
    state = HandState(variant_for(game), [rules.starting_stack] * len(seats), rules=rules,
                      seed=hand_seed)
    names = tuple(name for name, _ in seat_bots)
    ctx = HandContext("bench", f"h{number}", number, 1, len(seats), button, tuple(order), names,
                      names, (rules.starting_stack,) * len(seats), rules, f"d{number}")
    feed = HandFeed(state, ctx, lambda _seat: True)
    while not state.is_over:
        assert state.actor is not None
        _act(state, feed, seat_bots[order[state.actor]][1])
    return state, tuple(names[p] for p in order)


def iter_duplicate(kinds: list[str], *, games: tuple[str, ...], deals: int, seed: int,
                   rules: Rules | None = None) -> Iterator[PlayedDeal]:
    """``deals`` deals, each played in every rotation of the bots over the seats."""
    rules = rules or Rules()
    bots = [(f"{kind}{k}", BOTS[kind](derive_seed(seed, "bot", k))) for k, kind in enumerate(kinds)]
    n = len(bots)
    games_rules = Rules.from_mapping({**rules.to_mapping(), "games": list(games)})
    for deal in range(deals):
        game = game_for_hand(games_rules, deal, n)
        hand_seed = derive_seed(seed, "hand", deal)
        button = deal % n
        for copy in range(n):
            seat_bots = [bots[(p + copy) % n] for p in range(n)]
            state, names = play_hand(games_rules, game, seat_bots, button=button,
                                     hand_seed=hand_seed, number=deal + 1)
            yield PlayedDeal(deal, copy, state, names, hand_seed)
