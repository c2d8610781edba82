"""The wire's dealer's-choice fields as the dealer reads and writes them (docs/house-rules.md
§28): a CHOOSE_GAME reply's game, the refusals of a missing or unknown game and of a game on
another kind, a strategy's games, the request's legal entry and the GameChanged event."""

from __future__ import annotations

import pytest

from arena.engine.actions import ActionKind
from arena.match import messages as m
from arena.server.convert import event, legal_action, reply
from arena.v1 import arena_pb2 as pb

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def _reply(**action: object) -> m.Reply:
    message = pb.ActionReply(decision_id="d", seat=1, action=pb.Action(**action))  # type: ignore[arg-type]
    return reply(message, 0.0)


def test_a_choice_names_its_game_by_code() -> None:
    got = _reply(kind=pb.ACTION_KIND_CHOOSE_GAME, game=pb.GAME_STUD_HI_LO)
    assert (got.kind, got.game, got.problem) == (ActionKind.CHOOSE_GAME, "F7S/8", "")


def test_a_choice_without_a_known_game_is_malformed() -> None:
    none = _reply(kind=pb.ACTION_KIND_CHOOSE_GAME)
    assert none.kind is None and "CHOOSE_GAME needs a game" in none.problem
    unknown = _reply(kind=pb.ACTION_KIND_CHOOSE_GAME, game=999)
    assert unknown.kind is None and "Action.game 999 is not a game" in unknown.problem
    misplaced = _reply(kind=pb.ACTION_KIND_CALL, game=pb.GAME_HOLDEM)
    assert misplaced.kind is None and "game is only for ACTION_KIND_CHOOSE_GAME" in misplaced.problem


def test_a_strategy_over_games_keeps_each_entrys_game() -> None:
    message = pb.ActionReply(decision_id="d", seat=0, strategy=pb.Strategy(actions=[
        pb.WeightedAction(action=pb.Action(kind=pb.ACTION_KIND_CHOOSE_GAME, game=pb.GAME_RAZZ),
                          probability=0.25),
        pb.WeightedAction(action=pb.Action(kind=pb.ACTION_KIND_CHOOSE_GAME, game=pb.GAME_HOLDEM),
                          probability=0.75)]))
    got = reply(message, 0.0)
    assert got.strategy == ((ActionKind.CHOOSE_GAME, 0, 0.25), (ActionKind.CHOOSE_GAME, 0, 0.75))
    assert got.strategy_games == ("FR", "FT")


def test_the_request_and_the_announcement_carry_the_menu_and_the_chooser() -> None:
    legal = legal_action(m.LegalChoice(kind=ActionKind.CHOOSE_GAME, min_to_chips=0, max_to_chips=0,
                                       is_all_in=False, games=("FT", "NT", "FES")))
    assert legal.kind == pb.ACTION_KIND_CHOOSE_GAME
    assert list(legal.choosable_games) == [pb.GAME_HOLDEM, pb.GAME_NO_LIMIT_HOLDEM,
                                           pb.GAME_ENGLISH_STUD]
    notice = m.Notice(match_id="x", hand_id="", sequence=3, unix_seconds=1.0,
                      payload=m.GameChanged(game="NT", previous_game="FT", first_hand_number=7,
                                            dealers_choice=True, chooser_seat=2,
                                            automatic=m.AutoReason.TIMEOUT, hands=4))
    changed = event(notice).game_changed
    assert (changed.game, changed.dealers_choice, changed.chooser_seat, changed.automatic_reason,
            changed.hands) == (pb.GAME_NO_LIMIT_HOLDEM, True, 2, pb.AUTOMATIC_REASON_TIMEOUT, 4)


def test_the_fast_encoding_of_a_choice_request_is_the_messages() -> None:
    """The encoder's spliced bytes of a dealer's-choice request parse to the message the
    plain conversion builds: no cards, street STREET_GAME_CHOICE, the default as its game."""
    from arena.engine.rules import Rules
    from arena.match.choose import ChoiceDesk, Orbit
    from arena.match.clock import DecisionClock
    from arena.match.lobby import Lobby
    from arena.match.records import TableStats
    from arena.match.strategy_draw import StrategyDrawer
    from arena.match.timer import DecisionTimer
    from arena.server.convert import decision_request
    from arena.server.wire import Encoder

    rules = Rules.from_mapping({"games": ["FT", {"game": "NT", "big_blind": 50,
                                                 "small_blind": 25}], "dealers_choice": True})
    desk = ChoiceDesk(match_id="x", rules=rules, lobby=Lobby(), presences=[], stats=TableStats(),
                      timer=DecisionTimer(), drawer=StrategyDrawer(1, 0))
    seat = m.SeatInfo(seat=0, name="a", bot_id="a", stack_chips=2000, bet_chips=0,
                      committed_chips=0, up_cards=(), hole_card_count=0,
                      status=m.SeatStatus.ACTIVE)

    clock = DecisionClock(opened_at=0.0, decision_seconds=2.0, bank_seconds=0.0)
    prompt = desk.request(Orbit(number=2, first_hand=3, hands=2, button=1, current=0), 1,
                          (seat,), clock, 0.0)
    fast = pb.DealerMessage.FromString(Encoder().encode(prompt)).decision_request
    plain = decision_request(prompt)
    assert fast == plain
    assert fast.street == pb.STREET_GAME_CHOICE and fast.game_code == "NT"
    assert fast.stakes.big_blind_chips == 50 and fast.hand_id == "x-o2"
    assert not fast.hole_cards and not fast.actions
    assert list(fast.legal_actions[0].choosable_games) == [pb.GAME_HOLDEM,
                                                            pb.GAME_NO_LIMIT_HOLDEM]
