"""The live hub with issue 42's games: exchanges shown as spectators may see them (how many
cards; English Stud's up cards by name, never a down card: docs/house-rules.md §25, §26), wild
cards marked (§23; Low Hole's own at the showdown, §24), the games' names."""

from __future__ import annotations

import json

from arena.engine.cards import parse_cards
from arena.engine.rules import Rules
from arena.match import messages as m
from arena.web.live import SpectatorHub, _without_cards
from tests.web.test_live import _notice, _seat


def _started(hub: SpectatorHub, game: str, *, wild_ranks: str = "2") -> None:
    rules = Rules().to_mapping()
    rules["wild_ranks"] = wild_ranks
    texts = {k: json.dumps(v) for k, v in rules.items() if isinstance(v, str | bool | int | float)}
    hub.event_watched(_notice(1, m.MatchStarted(
        seats=(_seat(0), _seat(1)), your_seat=-1, games=(game,), hands_per_game=2, total_hands=2,
        stakes=Rules().stakes, starting_stack_chips=2000, decision_seconds=2.0,
        time_bank_seconds=5.0, rules=texts)))
    hub.event_watched(_notice(2, m.HandStarted(hand_number=1, game=game, button_seat=0, your_seat=-1,
                                               seats=(_seat(0), _seat(1)), stakes=Rules().stakes,
                                               deal_id="d", game_hand_number=1)))


def _exchange(seq: int, seat: int, count: int, gave: str = "", got: str = "", *,
              up: bool = False) -> m.Notice:
    record = m.ActionRecord(seat=seat, street="first draw", kind=m.RecordKind.EXCHANGE,
                            raise_to_chips=0, amount_chips=0, round_bet_chips=0, is_all_in=False,
                            exchange_card_count=count, exchanged_cards=tuple(parse_cards(gave)),
                            drawn_cards=tuple(parse_cards(got)), exchange_face_up=up)
    return _notice(seq, m.ActionTaken(action=record, stack_after_chips=2000,
                                          pot_total_after_chips=30, decision_id="d"))


def test_a_draw_shows_its_count_and_never_its_cards() -> None:
    """§26: 'the discards and new down cards are the seat's secret, how many it exchanged is
    public' - even when the hub is told the owner's copy first."""
    hub = SpectatorHub()
    _started(hub, "F2L3D")
    hub.event_watched(_exchange(3, 0, 2, "KsQh", "3c4d"))  # the owner's copy
    hub.event_watched(_exchange(4, 1, 0))
    (table,) = hub.snapshot()
    text = json.dumps(table)
    assert not {"Ks", "Qh", "3c", "4d"} & set(text.replace('"', " ").split())
    assert "Ks" not in text and "3c" not in text
    assert table["game_name"] == "Fixed-limit 2-7 Triple Draw"
    assert table["seats"][0]["exchange"] == {"count": 2, "gave": [], "got": []}
    assert table["seats"][1]["exchange"] == {"count": 0, "gave": [], "got": []}
    assert table["actions"][-2:] == ["bot0: exchange 2", "bot1: stand pat"]


def test_an_english_stud_up_card_exchange_is_public() -> None:
    """§25: an up card exchanged for a new up card: both by name, the new one in the old one's
    place; hidden like every card while another duplicate copy has the hand to play."""
    hub = SpectatorHub()
    _started(hub, "FES")
    hub.event_watched(_notice(3, m.CardsDealt(street="third", seat=0, up_cards=tuple(parse_cards("7d")),
                                              hole_cards=(), hole_card_count=2)))
    hub.event_watched(_exchange(4, 0, 1, "7d", "Ah", up=True))
    (table,) = hub.snapshot()
    seat = table["seats"][0]
    assert seat["up"] == ["Ah"] and seat["down"] == 2
    assert seat["exchange"] == {"count": 1, "gave": ["7d"], "got": ["Ah"]}
    assert table["actions"][-1] == "bot0: exchange 1 face up"
    hidden = _without_cards(table)
    assert hidden["seats"][0]["exchange"] == {"count": 1, "gave": ["??"], "got": ["??"]}
    assert "7d" not in json.dumps(hidden) and "Ah" not in json.dumps(hidden)


def _shown(seq: int, seat: int, cards: str, high: str) -> m.Notice:
    return _notice(seq, m.Showdown(hands=(m.ShownHand(
        seat=seat, cards=tuple(parse_cards(cards)), high_description=high, high_cards=(),
        low_description="", low_cards=()),)))


def test_wild_cards_are_marked() -> None:
    """§23: the wild ranks (the match's `wild_ranks`) for everyone; the shown hand's wild cards."""
    hub = SpectatorHub()
    _started(hub, "F7SW", wild_ranks="2J")
    hub.event_watched(_shown(3, 0, "2sJhAsAdAc7c9h", "five of a kind, aces"))
    (table,) = hub.snapshot()
    assert table["wild"] == ["2", "J"] and table["wild_text"] == "wild: 2 J"
    assert table["shown"][0]["wild"] == ["2s", "Jh"]


def test_low_hole_marks_each_shown_hands_own_wild_rank() -> None:
    """§24 [002]: 9-4 down, a 3 up: the fours are wild for that seat (no rank for everyone)."""
    hub = SpectatorHub()
    _started(hub, "FLH")
    for seq, card in enumerate(("3h", "Ks", "Kd", "Qc"), 3):
        hub.event_watched(_notice(seq, m.CardsDealt(street="third", seat=0, up_cards=tuple(parse_cards(card)),
                                                    hole_cards=(), hole_card_count=2 if seq == 3 else 0)))
    hub.event_watched(_shown(9, 0, "9c4d3hKsKdQc8h", "three of a kind, kings"))
    (table,) = hub.snapshot()
    assert table["wild"] == [] and "lowest down card" in table["wild_text"]
    assert table["shown"][0]["wild"] == ["4d"]
