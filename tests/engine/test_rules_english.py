"""docs/house-rules.md §25 English Stud [002]: stud to fifth street, two exchange rounds, the price
of an exchange, the optional seventh card, at most six players."""

from __future__ import annotations

import copy
import random

import pytest

from arena.engine.actions import ActionKind
from arena.engine.errors import IllegalAction
from arena.engine.events import CardsExchanged, HoleCardsDealt
from arena.engine.games import StreetName, variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState

ES = "FES"


def _to_exchange(state: HandState) -> HandState:
    while not state.exchanging:
        legal = state.legal_actions()
        if legal.bring_in_to_chips is not None:
            state.act(legal.seat, ActionKind.BRING_IN)
        else:
            state.check_or_call()
    return state


def test_at_most_six_players() -> None:
    """[002: "Diese Variante kann von höchstens sechs Spielern gespielt werden"]."""
    HandState(variant_for(ES), [100] * 6, seed=1)
    with pytest.raises(IllegalAction, match="2 to 6 seats"):
        HandState(variant_for(ES), [100] * 7, seed=1)


def test_first_exchange_after_fifth_street_betting() -> None:
    """[002: "bis zu dem Punkt, an dem jeder Spieler fünf Karten hat (zwei verdeckte und drei
    aufgedeckte). Nach der nächsten Einsatzrunde, und bevor die sechste Karte ausgeteilt wird,
    kann jeder Spieler ... beginnend mit dem Spieler links vom Kartengeber, eine beliebige
    Karte austauschen"]: five cards each, one card at most, from seat 0 in turn."""
    state = _to_exchange(HandState(variant_for(ES), [1000] * 4, seed=2))
    assert state.street == StreetName.SIXTH
    assert all(len(c) == 5 and u.count(True) == 3 for c, u in zip(state.cards, state.is_up,
                                                                    strict=True))
    legal = state.legal_actions()
    assert (legal.seat, legal.exchange_max_cards) == (0, 1)
    with pytest.raises(IllegalAction, match="at most 1"):
        state.exchange(0, state.cards[0][:2])


def test_up_for_up_and_down_for_down() -> None:
    """[002: "entweder eine verdeckte Karte ablegen und eine neue verdeckte Karte erhalten, oder
    eine aufgedeckte Karte ablegen und eine neue aufgedeckte Karte erhalten"]: the new card
    takes the face of the card given away; asking the other face is refused, nothing changes."""
    state = _to_exchange(HandState(variant_for(ES), [1000] * 3, seed=3))
    up_card = state.up_cards(0)[0]
    down_card = next(c for c, u in zip(state.cards[0], state.is_up[0], strict=True) if not u)
    before = (copy.deepcopy(state.cards), len(state.events), state.actor)
    with pytest.raises(IllegalAction, match="an up card for a down card"):
        state.exchange(0, [up_card], face_up=False)
    with pytest.raises(IllegalAction, match="a down card for an up card"):
        state.exchange(0, [down_card], face_up=True)
    assert (state.cards, len(state.events), state.actor) == before
    event = state.exchange(0, [up_card], face_up=True)
    assert event.is_up == (True,) and event.drawn[0] in state.up_cards(0)
    assert up_card not in state.up_cards(0)
    event = state.exchange(1, [state.cards[1][0]])  # a down card (dealt first)
    assert event.is_up == (False,) and event.drawn[0] not in state.up_cards(1)


def test_sixth_card_then_a_second_exchange_round_and_no_seventh_by_default() -> None:
    """[002: "Anschließend wird jedem Spieler eine sechste Karte aufgedeckt ausgeteilt, es gibt
    eine Einsatzrunde und eine weitere Austauschrunde. Auf eine letzte Einsatzrunde folgt der
    Showdown"]: six cards at the showdown (`english_seventh_card` false by default)."""
    state = HandState(variant_for(ES), [1000] * 5, seed=4)
    rounds = []
    while not state.is_over:
        if state.exchanging:
            rounds.append((state.street_index, [len(c) for c in state.cards]))
            state.exchange(state.actor, [])  # type: ignore[arg-type]
        elif (legal := state.legal_actions()).bring_in_to_chips is not None:
            state.act(legal.seat, ActionKind.BRING_IN)
        else:
            state.check_or_call()
    assert [street for street, _ in rounds] == [3] * 5 + [4] * 5
    assert rounds[0][1] == [5] * 5 and rounds[5][1] == [6] * 5
    assert all(len(c) == 6 and u[-1] for c, u in zip(state.cards, state.is_up, strict=True))


@pytest.mark.parametrize(("players", "cards"), [(5, 7), (6, 6)])
def test_seventh_card_for_five_players_or_fewer(players: int, cards: int) -> None:
    """[002 "Varianten": "Wenn es fünf oder weniger Spieler gibt, kann eine siebte verdeckte
    Karte ausgeteilt werden"]: key `english_seventh_card`; dealt down after the second
    exchange round; never at six players."""
    rules = Rules.from_mapping({"english_seventh_card": True})
    state = HandState(variant_for(ES), [1000] * players, rules=rules, seed=5)
    while not state.is_over:
        if state.exchanging:
            state.exchange(state.actor, [])  # type: ignore[arg-type]
        elif (legal := state.legal_actions()).bring_in_to_chips is not None:
            state.act(legal.seat, ActionKind.BRING_IN)
        else:
            state.check_or_call()
    assert all(len(c) == cards for c in state.cards)
    if cards == 7:
        assert not any(u[-1] for u in state.is_up)
        last = [e for e in state.events if isinstance(e, HoleCardsDealt)][-1]
        exchanges = [i for i, e in enumerate(state.events) if isinstance(e, CardsExchanged)]
        assert state.events.index(last) > exchanges[-1]


def test_exchange_price_goes_into_the_pot_and_is_not_a_bet() -> None:
    """[002 "Varianten": "ein Preis für den Austausch ... muss ein Spieler, der eine Karte
    austauscht, diesen Betrag in den Pot einzahlen. Dies zählt nicht als Einsatz, und die
    anderen Spieler müssen nicht nachziehen"]: key `exchange_price`; standing pat is free; a
    seat without the price may only stand pat."""
    rules = Rules.from_mapping({"exchange_price": 40})
    state = _to_exchange(HandState(variant_for(ES), [1000, 1000, 1000], rules=rules, seed=6))
    legal = state.legal_actions()
    assert legal.exchange_price_chips == 40
    pot, stack = state.pot_chips, state.stacks[0]
    state.exchange(0, [state.cards[0][0]])
    assert state.pot_chips == pot + 40 and state.stacks[0] == stack - 40
    assert state.bets == [0, 0, 0]
    state.exchange(1, [])
    assert state.stacks[1] == stack and state.pot_chips == pot + 40
    state.stacks[2] = 30  # (a short stack: the price is more than it has)
    state._legal = None
    legal = state.legal_actions()
    assert legal.exchange_max_cards == 0 and legal.exchange_price_chips == 0
    with pytest.raises(IllegalAction, match="costs 40"):
        state.exchange(2, [state.cards[2][0]])


def test_many_hands_conserve_chips_and_never_deal_a_card_twice() -> None:
    """docs/house-rules.md §1, §4 and §25: random English Stud hands, six players exchanging at every
    chance (the stub runs short: burns and discards are reshuffled), chips conserved."""
    rng = random.Random(8)
    rules = Rules.from_mapping({"exchange_price": 5, "english_seventh_card": True})
    for seed in range(200):
        n = rng.randint(2, 6)
        state = HandState(variant_for(ES), [rng.choice((30, 400))] * n, rules=rules, seed=seed)
        while not state.is_over:
            legal = state.legal_actions()
            if legal.can_exchange:
                k = min(legal.exchange_max_cards, rng.randint(0, 1))
                state.exchange(legal.seat, rng.sample(legal.exchangeable, k))
            elif legal.bring_in_to_chips is not None:
                state.act(legal.seat, ActionKind.BRING_IN)
            else:
                kinds = legal.kinds()
                kind = kinds[rng.randrange(len(kinds))]
                state.act(legal.seat, kind, legal.raise_min_to if kind is ActionKind.RAISE
                          else None)
            held = [c for cards in state.cards for c in cards] + state.board
            assert len(held) == len(set(held))
        assert sum(state.stacks) == sum(state.starting_stacks)
