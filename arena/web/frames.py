"""A logged hand as replayer steps: the table after every PHH action line (cards, bets, pots).

Step ``a<N>`` is the table after the N-th line of the hand's PHH ``actions`` (``a0``: after the
forced bets), so a deep link ``/hand/<id>#a12`` names the same moment as line 12 of the log.
Cards no spectator may know yet are sent as ``??`` (see :func:`hand_steps` ``reveal``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine.cards import Card, format_card
from arena.engine.describe_wild import LOW_HOLE_SHOWDOWNS, seat_wild
from arena.engine.drawplans import has_exchanges
from arena.engine.events import (
    ActionTaken,
    BoardDealt,
    CardsExchanged,
    ForcedBetPosted,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    PotAwarded,
    UncalledBetReturned,
)
from arena.engine.games import ENGINE_VARIANTS, Variant
from arena.engine.phh import PhhHand, replay
from arena.engine.pots import build_pots
from arena.engine.rules import Rules
from arena.engine.shown import shown_value_in
from arena.storage.show import action_words, exchange_words, fault_marks, low_words
from arena.web.equityview import SeatPlans, seat_equities
from arena.web.logfiles import int_list

HIDDEN = "??"

@dataclass
class _Table:
    """The running public picture of the hand, updated event by event."""

    stacks: list[int]
    bets: list[int]
    committed: list[int]
    folded: list[bool]
    all_in: list[bool]
    cards: list[list[tuple[Card, bool]]]
    board: list[Card]
    common_card: bool = False
    street: int = 0
    drawn: frozenset[tuple[int, int]] = frozenset()  # (seat, index) of cards drawn at this step


def hand_steps(hand: PhhHand, *, reveal: bool, rules: Rules | None = None,
               with_equity: bool = True) -> dict[str, Any]:
    """The replayer's data for one logged hand.

    ``reveal`` False hides every face-down card that was not shown at the showdown (a hand of a
    match still running: its players must not learn mucked cards) and computes no equity.
    Otherwise every decision step carries each seat's equity as the decision was made.
    """
    state = replay(hand, rules)
    fields = hand.fields
    variant = state.variant
    n = state.seat_count
    names = [str(p) for p in fields.get("players", [f"p{i + 1}" for i in range(n)])][:n]
    names += [f"p{i + 1}" for i in range(len(names), n)]
    # The cards a spectator may see besides up cards: all of them (``reveal``), else a seat's
    # cards shown at the showdown (never its discards: docs/house-rules.md §21).
    shown_cards = {e.seat: frozenset(e.cards) for e in state.events if isinstance(e, HandShown)}
    known: list[frozenset[Card] | None] = [None if reveal else shown_cards.get(seat, frozenset())
                                           for seat in range(n)]
    table = _Table(list(state.starting_stacks), [0] * n, [0] * n, [False] * n, [False] * n,
                   [[] for _ in range(n)], [])
    steps: list[dict[str, Any]] = []
    showdown: list[dict[str, Any]] = []
    awards: list[dict[str, Any]] = []
    line = 0

    def snapshot(text: str, actor: int | None, kind: str,
                 exchange: dict[str, Any] | None = None) -> None:
        seats = []
        for seat in range(n):
            cards = table.cards[seat]
            seats.append({
                "stack": table.stacks[seat], "bet": table.bets[seat],
                "committed": table.committed[seat], "folded": table.folded[seat],
                "all_in": table.all_in[seat],
                "cards": [[format_card(c) if _seen(known[seat], c, up) else HIDDEN, up]
                          for c, up in cards],
                **_wild_marks(variant, state.rules, cards, known[seat]),
                "drawn": [k for k in range(len(cards)) if (seat, k) in table.drawn],
            })
        live = [not f for f in table.folded]
        pots = _pots_so_far(table.committed, live, table.all_in)
        step: dict[str, Any] = {
            "a": line, "kind": kind, "text": text, "actor": actor,
            "street": variant.streets[table.street].name, "seats": seats,
            "board": [format_card(c) for c in table.board], "common_card": table.common_card,
            "pots": pots,
        }
        if exchange is not None:
            step["exchange"] = exchange
        if with_equity and reveal and kind == "decision":
            step["equity"] = seat_equities(variant, state.rules,
                                           [[c for c, _ in cs] for cs in table.cards],
                                           table.board, equity_live, plans)
        steps.append(step)

    started = False
    equity_live = [True] * n
    # Games with exchanges: what each seat still has to come (docs/house-rules.md §29).
    plans = SeatPlans(variant, state.rules, n) if has_exchanges(variant) else None
    marks = fault_marks(fields)
    draw_lines = 0  # the `d dh` lines of an exchange round, written after its last exchange
    exchange_street = -1
    for event in state.events:
        if draw_lines and not (isinstance(event, CardsExchanged) and event.street == exchange_street):
            line += draw_lines
            draw_lines = 0
        table.drawn = frozenset()
        if isinstance(event, ForcedBetPosted):
            table.stacks[event.seat] -= event.amount_chips
            table.bets[event.seat] += event.amount_chips
            table.committed[event.seat] += event.amount_chips
            table.all_in[event.seat] = event.is_all_in
            if event.kind == "ante":
                table.bets[event.seat] -= event.amount_chips  # antes are not bets of the round
            continue
        if not started:
            started = True
            snapshot("forced bets posted", None, "start")
        if isinstance(event, HoleCardsDealt | BoardDealt | ActionTaken | CardsExchanged) \
                and event.street != table.street:
            table.street = event.street
            table.bets = [0] * n
        if isinstance(event, HoleCardsDealt):
            line += 1
            table.cards[event.seat].extend(zip(event.cards, event.is_up, strict=True))
            if plans is not None:
                plans.dealt(event.seat, event.street, event.cards)
            shown = " ".join(format_card(c) if _seen(known[event.seat], c, up) else HIDDEN
                             for c, up in zip(event.cards, event.is_up, strict=True))
            snapshot(f"dealt to {names[event.seat]}: {shown}", None, "deal")
        elif isinstance(event, BoardDealt):
            line += 1
            table.board.extend(event.cards)
            table.common_card = table.common_card or event.is_stud_common_card
            if plans is not None and variant.is_stud:  # §1: the street's card, common to all
                for seat in range(n):
                    plans.dealt(seat, event.street, event.cards)
            label = "common card" if event.is_stud_common_card else "board"
            snapshot(f"{label}: {' '.join(format_card(c) for c in event.cards)}", None, "board")
        elif isinstance(event, ActionTaken):
            line += 1
            equity_live = [not f for f in table.folded]
            text = f"{names[event.seat]} {action_words(state, event, max(table.bets), marks.get(line))}"
            table.stacks[event.seat] -= event.added_chips
            table.bets[event.seat] = event.to_chips
            table.committed[event.seat] += event.added_chips
            table.all_in[event.seat] = event.is_all_in
            if event.kind.value == "fold":
                table.folded[event.seat] = True
            snapshot(text, event.seat, "decision")
        elif isinstance(event, CardsExchanged):
            line += 1  # its `sd` line
            exchange_street = event.street
            draw_lines += 1 if event.drawn else 0
            table.stacks[event.seat] -= event.price_chips
            table.committed[event.seat] += event.price_chips
            exchange = _exchanged(table, event, known[event.seat])
            if plans is not None:
                plans.exchanged(event)
            words = exchange_words(event) if reveal else _public_exchange_words(event)
            snapshot(f"{names[event.seat]} {words}", event.seat, "exchange", exchange)
        elif isinstance(event, UncalledBetReturned):
            table.stacks[event.seat] += event.amount_chips
            table.committed[event.seat] -= event.amount_chips
            table.bets[event.seat] -= event.amount_chips
        elif isinstance(event, HandShown):
            line += 1
            value = shown_value_in(state, event.seat, event.cards)
            wild = _wild_marks(variant, state.rules, list(zip(state.cards[event.seat],
                                                              state.is_up[event.seat], strict=True)),
                               None)  # a shown hand: every card seen
            final = [format_card(c) for c in state.cards[event.seat]]
            showdown.append({"seat": event.seat, "cards": [format_card(c) for c in event.cards],
                             "wild": [final[k] for k in wild.get("wild", [])],
                             "wild_low": [final[k] for k in wild.get("wild_low", [])],
                             "high": value.high_description,
                             "high_cards": [format_card(c) for c in value.high_cards],
                             "low": value.low_description,
                             "low_cards": [format_card(c) for c in value.low_cards]})
            words = value.high_description or ""
            if value.low_description:
                low = low_words(value.low_description)
                words = f"{words}; {low}" if words else low
            snapshot(f"{names[event.seat]} shows {' '.join(format_card(c) for c in event.cards)}"
                     + (f": {words}" if words else ""), event.seat, "show")
        elif isinstance(event, HandMucked):
            line += 1
            snapshot(f"{names[event.seat]} mucks", event.seat, "show")
        elif isinstance(event, PotAwarded):
            awards.append(_award(event))
    line += draw_lines
    _mark_odd_half(awards)
    if not started:
        snapshot("forced bets posted", None, "start")
    result = state.result
    final_stacks = list(result.final_stacks) if result is not None else list(state.stacks)
    table.stacks = final_stacks
    table.bets = [0] * n
    settled = [{"amount": p.amount_chips, "eligible": list(p.eligible)}
               for p in build_pots(table.committed, [not f for f in table.folded]) if p.amount_chips]
    snapshot(_result_text(awards, names), None, "end")
    steps[-1]["a"] = line + 1
    steps[-1]["pots"] = settled  # as awarded: uncalled bets returned
    net = [f - s for f, s in zip(final_stacks, state.starting_stacks, strict=True)]
    return {
        "hand_id": str(fields.get("_hand_id", hand.name)),
        "match_id": str(fields.get("_match_id", "")),
        "deal_id": str(fields.get("_deal_id", "")),
        "hand_number": fields.get("_hand"),
        "game": variant.code.value, "game_name": variant.name, "is_stud": variant.is_stud,
        "wild_text": _wild_text(variant, state.rules),
        "players": names, "seats": [int(s) for s in fields.get("_seats", range(n))][:n],
        "button_seat": fields.get("_button_seat"),
        "small_bet": state.stakes.small_bet, "big_bet": state.stakes.big_bet,
        "starting_stacks": list(state.starting_stacks), "finishing_stacks": final_stacks,
        "net_chips": net, "revealed": reveal, "steps": steps, "showdown": showdown,
        "awards": awards,
        "timeouts": list(int_list(fields.get("_timeouts"), n)),
        "absent": list(int_list(fields.get("_absent"), n)),
        "sdk_fallbacks": list(int_list(fields.get("_sdk_fallbacks"), n)),
        "faults": {str(line): reason for line, reason in sorted(marks.items())},
    }


_PLURALS = ("deuces", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
            "jacks", "queens", "kings", "aces")


def _wild_text(variant: Variant, rules: Rules) -> str:
    """The hand's wild cards in words, for the replayer's head (docs/house-rules.md §23, §24)."""
    wild = seat_wild(variant, rules, (), ())
    ranks = wild.high | wild.low
    if ranks:
        return " and ".join(_PLURALS[r] for r in sorted(ranks)) + " wild"
    if variant.showdown in LOW_HOLE_SHOWDOWNS:
        return "each player's lowest down card wild for that player"
    return ""


def _wild_marks(variant: Variant, rules: Rules, cards: Sequence[tuple[Card, bool]],
                known: frozenset[Card] | None) -> dict[str, list[int]]:
    """The indexes of a seat's cards that are wild for it (``wild``: for its high hand, or its
    only hand; ``wild_low``: for its low hand only), among the cards a spectator sees. In Low
    Hole the seat's own wild rank depends on its down cards: marked only when they are seen."""
    if variant.code not in ENGINE_VARIANTS:
        return {}
    wild = seat_wild(variant, rules, [c for c, _ in cards], [up for _, up in cards])
    if wild.own and not all(_seen(known, c, up) for c, up in cards):
        return {"wild": [], "wild_low": []}
    main = wild.high or wild.low
    low_only = wild.low - wild.high if wild.high else frozenset()
    seen = [(k, c >> 2) for k, (c, up) in enumerate(cards) if _seen(known, c, up)]
    return {"wild": [k for k, rank in seen if rank in main],
            "wild_low": [k for k, rank in seen if rank in low_only]}


def _seen(known: frozenset[Card] | None, card: Card, up: bool) -> bool:
    """Whether a spectator may see ``card`` of a seat whose ``known`` cards (None: all) it may."""
    return up or known is None or card in known


def _exchanged(table: _Table, event: CardsExchanged, known: frozenset[Card] | None) -> dict[str, Any]:
    """Put the drawn cards where the discarded ones were (each takes its card's face) and say
    what went and what came: the cards a spectator may see, ``??`` for the others."""
    cards = table.cards[event.seat]
    drawn: set[tuple[int, int]] = set()
    for old, new, up in zip(event.discarded, event.drawn, event.is_up, strict=True):
        index = next(k for k, (c, _) in enumerate(cards) if c == old)
        cards[index] = (new, up)
        drawn.add((event.seat, index))
    table.drawn = frozenset(drawn)

    def names(given: Sequence[Card]) -> list[list[Any]]:
        return [[format_card(c) if _seen(known, c, up) else HIDDEN, up]
                for c, up in zip(given, event.is_up, strict=True)]

    return {"seat": event.seat, "gave": names(event.discarded), "got": names(event.drawn),
            "price": event.price_chips}


def _public_exchange_words(event: CardsExchanged) -> str:
    """An exchange as a spectator may see it: how many cards, the up cards named."""
    if not event.discarded:
        return "stands pat"
    if all(event.is_up):
        return exchange_words(event)
    count = len(event.discarded)
    paid = f", paying {event.price_chips}" if event.price_chips else ""
    return f"exchanges {count} card{'s' if count > 1 else ''}{paid}"


def _pots_so_far(committed: Sequence[int], live: Sequence[bool],
                 all_in: Sequence[bool]) -> list[dict[str, Any]]:
    """The pots while betting goes on (docs/house-rules.md §5 side pots): a side pot starts only above
    what a live all-in seat could put in; seats still able to bet are eligible for every pot."""
    top = max(committed, default=0)
    caps = sorted({c for c, is_live, out in zip(committed, live, all_in, strict=True)
                   if is_live and out and 0 < c < top})
    pots: list[dict[str, Any]] = []
    previous = 0
    for level in [*caps, top]:
        amount = sum(min(c, level) - min(c, previous) for c in committed)
        eligible = [k for k, c in enumerate(committed) if live[k] and (not all_in[k] or c >= level)]
        if amount:
            pots.append({"amount": amount, "eligible": eligible})
        previous = level
    return pots


def _award(event: PotAwarded) -> dict[str, Any]:
    top = max(event.amounts_chips, default=0)
    odd = len(set(event.amounts_chips)) > 1
    return {"pot": event.pot_index, "share": event.share.value, "amount": event.amount_chips,
            "winners": [{"seat": w, "chips": a, "odd_chip": odd and a == top}
                        for w, a in zip(event.winners, event.amounts_chips, strict=True)]}


def _mark_odd_half(awards: list[dict[str, Any]]) -> None:
    """A hi-lo pot of an odd size: its high half got the odd chip (docs/house-rules.md §5)."""
    halves: dict[int, dict[str, dict[str, Any]]] = {}
    for award in awards:
        halves.setdefault(award["pot"], {})[award["share"]] = award
        award["odd_chip_half"] = False
    for pot in halves.values():
        if "high" in pot and "low" in pot and pot["high"]["amount"] > pot["low"]["amount"]:
            pot["high"]["odd_chip_half"] = True


def _result_text(awards: Sequence[Mapping[str, Any]], names: Sequence[str]) -> str:
    parts = []
    for award in awards:
        who = ", ".join(f"{names[w['seat']]} {w['chips']}" + (" (odd chip)" if w["odd_chip"] else "")
                        for w in award["winners"])
        share = "" if award["share"] == "whole" else f" {award['share']} half"
        share += " (odd chip)" if award["odd_chip_half"] else ""
        parts.append(f"pot {award['pot'] + 1}{share} ({award['amount']}): {who}")
    return "; ".join(parts) or "hand over"
