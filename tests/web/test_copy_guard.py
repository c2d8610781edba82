"""Issue 36: no web route serves a card of a duplicate deal while another copy of that deal
still has that hand to play (a bot there could read its future cards from the web)."""

from __future__ import annotations

import json
from pathlib import Path

from starlette.testclient import TestClient

from arena.engine.cards import parse_cards
from arena.engine.phh import dumps_hands
from arena.engine.rules import Rules
from arena.host.phhfile import load_file
from arena.league.config import load_league
from arena.match import messages as m
from arena.match.simulate import simulate
from arena.web.app import WebApp
from arena.web.live import SpectatorHub
from arena.web.site import LeagueSite


def _client(tmp_path: Path, hands_per_copy: dict[int, int]) -> TestClient:
    league = tmp_path / "league.toml"
    league.write_text('name = "t"\nhands_per_match = 6\nlog_dir = "logs"\nseed = 3\n'
                      '[[bots]]\nname = "alpha"\ntoken = "alpha-token-1"\n'
                      '[[bots]]\nname = "beta"\ntoken = "beta-token-12"\n', encoding="utf-8")
    simulate(game="horse", players=2, hands=6, seed=9, out_dir=str(tmp_path), policy="call")
    hands = load_file(str(tmp_path / "hands.phhs"))
    (tmp_path / "logs").mkdir()
    for copy, count in hands_per_copy.items():
        match_id = f"r1-t1-c{copy}"
        fields = []
        for k, hand in enumerate(hands[:count]):
            f = dict(hand.fields)
            f.update(players=["alpha", "beta"], _match_id=match_id, _hand_id=f"{match_id}-h{k + 1}",
                     _hand=k + 1, _deal_id=f"r1-t1/deal-{k + 1}", _seats=[0, 1])
            fields.append(f)
        (tmp_path / "logs" / f"{match_id}.phhs").write_text(dumps_hands(fields), encoding="utf-8")
    return TestClient(WebApp(LeagueSite(load_league(league))).starlette())


def test_a_hand_is_served_only_once_every_copy_has_played_it(tmp_path: Path) -> None:
    client = _client(tmp_path, {1: 6, 2: 3})  # both copies running; copy 2 is three hands behind
    for hand in (1, 2, 3):
        for copy in (1, 2):
            assert client.get(f"/api/hand/r1-t1-c{copy}-h{hand}.json").status_code == 200
        assert client.get(f"/deal?id=r1-t1/deal-{hand}").status_code == 200
    for hand in (4, 5, 6):  # copy 2 has these still to play: not a card of them, anywhere
        for path in (f"/api/hand/r1-t1-c1-h{hand}.json", f"/hand/r1-t1-c1-h{hand}",
                     f"/deal?id=r1-t1/deal-{hand}", "/download/r1-t1-c1/phhs"):
            response = client.get(path)
            assert response.status_code == 404, path
    assert "r1-t1-c1-h6" in client.get("/match/r1-t1-c1").text  # listed; its cards stay hidden


def _seat(seat: int, up: str = "") -> m.SeatInfo:
    return m.SeatInfo(seat=seat, name=f"bot{seat}", bot_id=f"bot{seat}", stack_chips=2000,
                      bet_chips=0, committed_chips=0, up_cards=tuple(parse_cards(up)),
                      hole_card_count=0, status=m.SeatStatus.ACTIVE)


def _notice(match: str, hand: str, sequence: int, payload: m.Payload) -> m.Notice:
    return m.Notice(match_id=match, hand_id=hand, sequence=sequence, unix_seconds=0.0,
                    payload=payload)


def _hand(match: str, up: tuple[str, str]) -> m.Notice:
    return _notice(match, f"{match}-h1", 2, m.HandStarted(
        hand_number=1, game="F7S", button_seat=0, your_seat=0,
        seats=(_seat(0, up[0]), _seat(1, up[1])), stakes=Rules().stakes, deal_id="d/deal-1",
        game_hand_number=1))


def test_the_live_view_hides_a_deal_s_cards_until_the_other_copies_have_played_it() -> None:
    hub = SpectatorHub()
    for match in ("d-c1", "d-c2"):
        hub.event_watched(_notice(match, "", 1, m.MatchStarted(
            seats=(_seat(0), _seat(1)), your_seat=-1, games=("F7S",), hands_per_game=2,
            total_hands=10, stakes=Rules().stakes, starting_stack_chips=2000, decision_seconds=2.0,
            time_bank_seconds=30.0, rules={}, duplicate_copies=2)))
    hub.event_watched(_hand("d-c1", ("7d", "Kh")))
    hub.event_watched(_notice("d-c1", "d-c1-h1", 3, m.CardsDealt(
        street="third", seat=0, up_cards=tuple(parse_cards("9c")), hole_cards=(),
        hole_card_count=2)))
    leading = json.dumps(hub.snapshot())
    assert "7d" not in leading and "9c" not in leading and "Kh" not in leading
    assert "another copy of this deal has not played this hand yet" in leading
    hub.event_watched(_notice("d-c1", "d-c1-h1", 4, m.HandEnded(
        results=(), awards=(), voided=False, void_reason="", went_to_showdown=False)))
    hub.event_watched(_hand("d-c2", ("Kh", "7d")))
    lagging = next(t for t in hub.snapshot() if t["match_id"] == "d-c2")
    assert lagging["seats"][0]["up"] == ["Kh"]  # every other copy has played it: shown
    still = next(t for t in hub.snapshot() if t["match_id"] == "d-c1")
    assert set(still["seats"][0]["up"]) == {"??"}  # ended here, but copy 2 plays it now
