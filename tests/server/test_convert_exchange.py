"""docs/house-rules.md §26 on the wire: a bot's exchange reply as the dealer reads it. Every
bot-sent value is checked: unknown card names, a card twice, more cards than any hand holds,
exchange cards on another kind; each is refused with a clear reason before the hand sees it."""

from __future__ import annotations

import pytest

from arena.engine.actions import ActionKind
from arena.engine.cards import parse_cards
from arena.match import messages as m
from arena.server import convert
from arena.v1 import arena_pb2 as pb

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def _reply(kind: pb.ActionKind.ValueType, names: list[str]) -> m.Reply:
    return convert.reply(pb.ActionReply(decision_id="d", seat=1, action=pb.Action(
        kind=kind, exchange_cards=names)), received_at=0.0)


def test_an_exchange_names_its_cards() -> None:
    reply = _reply(pb.ACTION_KIND_EXCHANGE, ["7h", "Kd"])
    assert reply.kind is ActionKind.EXCHANGE and not reply.problem
    assert reply.cards == tuple(parse_cards("7hKd"))


def test_standing_pat_is_an_exchange_of_no_cards() -> None:
    reply = _reply(pb.ACTION_KIND_EXCHANGE, [])
    assert reply.kind is ActionKind.EXCHANGE and reply.cards == () and not reply.problem


@pytest.mark.parametrize(("names", "words"), [
    (["7h", "Zz"], "'Zz' is not a card"),
    (["7h", "7H"], "'7H' is not a card"),  # suits are lower case, as in every card the dealer sends
    (["x" * 5000], "'xxxxxxxxxxxx...' is not a card"),  # a huge name is cut in the message
    (["7h", "7h"], "names 7h twice"),
    (["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c"], "names 8 cards; a hand never holds more"),
])
def test_bad_exchange_cards_are_refused_with_the_reason(names: list[str], words: str) -> None:
    reply = _reply(pb.ACTION_KIND_EXCHANGE, names)
    assert reply.kind is None and words in reply.problem and reply.cards == ()


def test_exchange_cards_on_a_betting_kind_are_refused() -> None:
    reply = _reply(pb.ACTION_KIND_CALL, ["7h"])
    assert reply.kind is None
    assert reply.problem == "exchange_cards is only for ACTION_KIND_EXCHANGE, not ACTION_KIND_CALL"


def test_the_exchange_choice_and_record_on_the_wire() -> None:
    """docs/house-rules.md §25/§26: the limits of an exchange and a public exchange record."""
    choice = m.LegalChoice(kind=ActionKind.EXCHANGE, min_to_chips=0, max_to_chips=0,
                           is_all_in=False, min_exchanged=0, max_exchanged=1,
                           exchangeable_cards=tuple(parse_cards("7h8d9c")), price_chips=5,
                           keeps_face=True)
    legal = convert.legal_action(choice)
    assert (legal.kind, legal.min_exchange_cards, legal.max_exchange_cards,
            list(legal.exchangeable_cards), legal.exchange_price_chips,
            legal.replacement_keeps_face) == (pb.ACTION_KIND_EXCHANGE, 0, 1, ["7h", "8d", "9c"],
                                              5, True)
    record = convert.action_record(m.ActionRecord(
        seat=2, street="first draw", kind=m.RecordKind.EXCHANGE, raise_to_chips=0,
        amount_chips=0, round_bet_chips=0, is_all_in=False, exchange_card_count=3))
    assert (record.street, record.kind, record.exchange_card_count, list(record.exchanged_cards)
            ) == (pb.STREET_FIRST_DRAW, pb.ACTION_KIND_EXCHANGE, 3, [])


def test_every_new_game_code_has_its_enum() -> None:
    from arena.engine.games import EngineGame
    assert {convert.GAMES[g.value] for g in EngineGame} == set(range(9, 17))


def test_an_exchange_in_a_strategy_is_refused_with_the_reason() -> None:
    """An exchange is not drawn from a strategy (docs/games.md §4): the reply is malformed."""
    reply = convert.reply(pb.ActionReply(decision_id="d", seat=1, strategy=pb.Strategy(actions=[
        pb.WeightedAction(action=pb.Action(kind=pb.ACTION_KIND_EXCHANGE), probability=1.0)])),
        received_at=0.0)
    assert reply.kind is None and reply.strategy is None
    assert reply.problem.startswith("an exchange cannot be drawn from a strategy")
