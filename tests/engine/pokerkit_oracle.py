"""PokerKit 0.7.7 as a test oracle (docs/testing.md, PokerKit): the pieces both differential tests share.

Our seeded deck records every burn and deal so that the same cards can be fed to a PokerKit
``State``; a decision of either engine is reduced to one comparable value; PokerKit's documented
pot rules (which docs/house-rules.md §5 rejects) can be replayed on our final state. The modules that use
this call ``pytest.importorskip("pokerkit")`` before importing it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pokerkit import Automation, State
from pokerkit.lookups import Lookup

from arena.engine.actions import ActionKind, LegalActions
from arena.engine.cards import format_card
from arena.engine.events import PotShare
from arena.engine.state import BOARD, HandState, SeededDeck

# Every automation but card dealing and player actions, which the tests drive.
AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

BURN = -2  # the "seat" of a burn card in the recorded deck log


def _remember_lookup_keys() -> None:
    """PokerKit computes a hand's lookup key again each time two hands are compared (most of
    the differential tests' time, 60 five-card hands per Omaha player): the key of the same
    cards in the same order is remembered. A pure function's results: no outcome changes."""
    original = Lookup._get_key
    if getattr(original, "remembered", False):
        return
    keys: dict[tuple[type[Lookup], tuple[object, ...]], tuple[int, bool]] = {}

    def get_key(self: Lookup, cards: object) -> tuple[int, bool]:
        if type(cards) is not tuple:
            return original(self, cards)  # type: ignore[arg-type]
        key = (type(self), cards)
        found = keys.get(key)
        if found is None:
            if len(keys) > 2_000_000:
                keys.clear()
            found = keys[key] = original(self, cards)
        return found

    get_key.remembered = True  # type: ignore[attr-defined]
    Lookup._get_key = get_key  # type: ignore[method-assign]


_remember_lookup_keys()


class RecordingDeck(SeededDeck):
    """Our seeded deck, remembering every burn and deal in order (seat, card)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.log: list[tuple[int, int]] = []

    def deal(self, seat: int) -> int:
        card = super().deal(seat)
        self.log.append((seat, card))
        return card

    def burn(self) -> int:
        card = super().burn()
        self.log.append((BURN, card))
        return card


class Diverged(Exception):
    def __init__(self, key: str, detail: str) -> None:
        super().__init__(f"{key}: {detail}")
        self.key = key
        self.detail = detail


def feed_cards(pk: State, log: list[tuple[int, int]], pos: int, is_stud: bool) -> int:
    """Deal to PokerKit what our deck dealt, until PokerKit needs a player action or is done."""
    while pk.status:
        if pk.card_burning_status:
            if pos >= len(log):
                break  # our engine has not dealt this yet: the caller compares the decisions
            if log[pos][0] == BURN:
                pk.burn_card(format_card(log[pos][1]))
                pos += 1
            elif is_stud:
                # docs/house-rules.md §1: our short stub takes the burn cards back and deals without a
                # new burn; PokerKit always burns. Burn an unknown card and compare on.
                pk.burn_card("??")
            else:
                raise AssertionError(f"PokerKit burns but our engine dealt {log[pos:pos + 1]}")
        elif any(pk.hole_dealing_statuses):
            if pos >= len(log):
                break
            seat, card = log[pos]
            if seat == BURN:
                raise AssertionError("our engine burned where PokerKit deals a hole card")
            if seat == BOARD:
                if is_stud:
                    raise Diverged("stud_stub", "our common card; PokerKit recycles folded cards")
                raise AssertionError("our board card where PokerKit deals hole cards")
            assert pk.hole_dealee_index == seat, (pk.hole_dealee_index, seat, "dealing order §1")
            pk.deal_hole(format_card(card), seat)
            pos += 1
        elif any(pk.board_dealing_counts):
            if pos >= len(log):
                break
            seat, card = log[pos]
            if seat != BOARD:
                if is_stud:
                    raise Diverged("stud_stub", "PokerKit deals a common card, we deal hole cards")
                raise AssertionError(f"our deal {seat, card} where PokerKit deals the board")
            pk.deal_board(format_card(card))
            pos += 1
        else:
            break
    return pos


@dataclass(frozen=True)
class Decision:
    actor: int | None
    can_fold: bool
    can_check: bool
    call_chips: int | None  # chips added by calling
    bring_in_chips: int | None
    raise_min_to: int | None
    raise_max_to: int | None


def ours_decision(state: HandState) -> tuple[Decision, LegalActions | None]:
    if state.actor is None:
        return Decision(None, False, False, None, None, None, None), None
    legal = state.legal_actions()
    call = None
    if legal.call_to_chips is not None:
        call = legal.call_to_chips - state.bets[legal.seat]
    decision = Decision(legal.seat, legal.can_fold, legal.can_check, call,
                        legal.bring_in_to_chips, legal.raise_min_to, legal.raise_max_to)
    return decision, legal


def pokerkit_decision(pk: State) -> Decision:
    actor = pk.actor_index
    if actor is None:
        return Decision(None, False, False, None, None, None, None)
    amount = pk.checking_or_calling_amount
    can_check = pk.can_check_or_call() and amount == 0
    call = amount if amount else None
    return Decision(
        actor,
        pk.can_fold(),
        can_check,
        call,
        pk.effective_bring_in_amount,
        pk.min_completion_betting_or_raising_to_amount,
        pk.max_completion_betting_or_raising_to_amount,
    )


def pokerkit_pointless(pk: State) -> bool:
    """PokerKit's actor owes nothing, cannot raise, and every other live player is all in."""
    actor = pk.actor_index
    return (actor is not None and pk.checking_or_calling_amount == 0
            and pk.min_completion_betting_or_raising_to_amount is None
            and all(not pk.stacks[i] for i in pk.player_indices if pk.statuses[i] and i != actor))


def pokerkit_style_stacks(state: HandState) -> tuple[list[str], list[int]]:
    """Our final stacks re-awarded with PokerKit 0.7.7's pot rules that docs/house-rules.md §5 rejects.

    ``merged_pots``: PokerKit kills the showdown hands that win nothing, then merges pots
    whose remaining players are the same and splits the merged pot once; docs/house-rules.md splits
    every side pot on its own. ``odd_chips``: PokerKit gives all odd chips of a tied split to
    the lowest seat; docs/house-rules.md gives one chip each, from the first tied winner left of the
    button. ``hilo_pot_without_low``: PokerKit halves every pot as soon as any showdown hand
    has a qualifying low and splits a pot's low half among all its players when none of them
    qualifies; docs/house-rules.md awards a pot without a qualifying low whole to its high hand.
    """
    result = state.result
    assert result is not None
    stacks = list(state.starting_stacks)
    for seat, chips in enumerate(state.committed):
        stacks[seat] -= chips
    if not result.showdown_order:
        return [], list(state.stacks)
    keys: set[str] = set()
    won = {s for a in result.awards for s, c in zip(a.winners, a.amounts_chips, strict=True) if c}
    killed = set(result.showdown_order) - won
    hi_lo = state.variant.showdown.name == "HIGH_LOW_8"
    any_low = any(a.share is PotShare.LOW for a in result.awards)
    groups: list[tuple[int, tuple[int, ...], int]] = []  # amount, players, first pot index
    for index, pot in enumerate(result.pots):
        players = tuple(s for s in pot.eligible if s not in killed)
        if groups and groups[-1][1] == players:
            keys.add("merged_pots")
            amount, _, first = groups.pop()
            groups.append((amount + pot.amount_chips, players, first))
        else:
            groups.append((pot.amount_chips, players, index))
    for amount, players, first in groups:
        awards = [a for a in result.awards if a.pot_index == first]
        high = next(list(a.winners) for a in awards if a.share is not PotShare.LOW)
        lows = [list(a.winners) for a in awards if a.share is PotShare.LOW]
        if hi_lo and any_low:
            if not lows and len(players) > 1:
                keys.add("hilo_pot_without_low")
            low = amount // 2
            shares = [(amount - low, high), (low, lows[0] if lows else list(players))]
        else:
            shares = [(amount, high)]
        for chips, winners in shares:
            quotient, remainder = divmod(chips, len(winners))
            if remainder > 1:
                keys.add("odd_chips")
            for seat in winners:
                stacks[seat] += quotient + (remainder if seat == min(winners) else 0)
    return sorted(keys), stacks


def pokerkit_act(pk: State, kind: ActionKind, amount: int | None) -> None:
    """Take on PokerKit's side the action our engine just took."""
    if kind is ActionKind.FOLD:
        pk.fold()
    elif kind in (ActionKind.CHECK, ActionKind.CALL):
        pk.check_or_call()
    elif kind is ActionKind.BRING_IN:
        pk.post_bring_in()
    else:
        pk.complete_bet_or_raise_to(amount)
