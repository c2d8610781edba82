"""The live hub: public information only, one read per event, slow spectators dropped."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import AsyncIterator
from typing import Any

from arena.engine.cards import parse_cards
from arena.engine.rules import Rules
from arena.match import messages as m
from arena.web.live import ENDED, QUEUE_ITEMS, SpectatorHub


def _seat(seat: int) -> m.SeatInfo:
    return m.SeatInfo(seat=seat, name=f"bot{seat}", bot_id=f"bot{seat}", stack_chips=2000, bet_chips=0,
                      committed_chips=0, up_cards=(), hole_card_count=0, status=m.SeatStatus.ACTIVE)


def _notice(seq: int, payload: m.Payload, hand_id: str = "x-h1") -> m.Notice:
    return m.Notice(match_id="x", hand_id=hand_id, sequence=seq, unix_seconds=0.0, payload=payload)


def test_hole_cards_of_the_owner_copy_never_reach_the_state() -> None:
    """docs/house-rules.md §9: the owner's CardsDealt copy carries hole cards; the hub reads counts only."""
    hub = SpectatorHub()
    stakes = Rules().stakes
    hub.event_watched(_notice(1, m.HandStarted(hand_number=1, game="F7S", button_seat=0, your_seat=0,
                                               seats=(_seat(0),
                                                      _seat(1)), stakes=stakes, deal_id="d",
                                                      game_hand_number=1)))
    hole = tuple(parse_cards("AsKs"))
    up = tuple(parse_cards("7d"))
    owner = m.CardsDealt(street="third", seat=0, up_cards=up, hole_cards=hole, hole_card_count=2)
    other = m.CardsDealt(street="third", seat=0, up_cards=up, hole_cards=(), hole_card_count=2)
    hub.event_watched(_notice(2, owner))  # an owner's copy (the dealer tells the others' copy) ...
    hub.event_watched(_notice(2, other))  # ... the same event told again is not read again
    text = json.dumps(hub.snapshot())
    assert "As" not in text and "Ks" not in text and "7d" in text
    assert hub.snapshot()[0]["seats"][0]["down"] == 2
    hub.event_watched(_notice(3, m.MatchEnded(results=(), match_seed="123456789", hands_played=1,
                                              aborted=False, abort_reason="")))
    assert "123456789" not in json.dumps(hub.snapshot())


def test_a_slow_spectator_is_dropped_and_never_blocks() -> None:
    async def main() -> tuple[int, int]:
        hub = SpectatorHub(interval_seconds=0.01)
        stream = hub.stream()
        assert (await stream.__anext__()).startswith("retry")
        stakes = Rules().stakes
        for k in range(QUEUE_ITEMS + 10):  # never read: the queue fills up
            hub.event_watched(_notice(k + 1, m.HandStarted(hand_number=k, game="FT", button_seat=0,
                                                           your_seat=0, seats=(_seat(0), _seat(1)),
                                                           stakes=stakes, deal_id="d", game_hand_number=1),
                                                           hand_id=f"x-h{k}"))
            hub.flush()
        return hub.dropped_spectators, len(hub._spectators)

    # A thread of its own: Playwright's sync API may keep a loop running in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        dropped, left = pool.submit(asyncio.run, main()).result(timeout=30)
    assert dropped == 1 and left == 0


def test_decision_shows_whose_turn_and_the_clock_not_the_cards() -> None:
    hub = SpectatorHub()
    stakes = Rules().stakes
    hub.event_watched(_notice(1, m.HandStarted(hand_number=1, game="FT", button_seat=0, your_seat=0,
                                               seats=(_seat(0),
                                                      _seat(1)), stakes=stakes, deal_id="d",
                                                      game_hand_number=1)))
    prompt = m.Prompt(match_id="x", hand_id="x-h1", decision_id="d1", game="FT", street="preflop",
                      hand_number=1, game_hand_number=1, hands_per_game=2, button_seat=0, seat=1,
                      seats=(_seat(0),
                          _seat(1)),
                      hole_cards=tuple(parse_cards("QhQd")), board=(), pots=(), pot_total_chips=0, actions=(),
                      current_bet_chips=0, to_call_chips=0, legal=(), stakes=stakes, bet_size_chips=20,
                      raises_left=3, decision_time_left_seconds=2.0, time_bank_left_seconds=5.0,
                      deadline_unix_seconds=1234.5, sent_unix_seconds=0.0)
    hub.decision_opened(prompt)
    state = hub.snapshot()[0]
    assert state["actor"] == 1 and state["deadline_unix_seconds"] == 1234.5
    assert "Qh" not in json.dumps(state)


def test_a_failing_live_view_never_raises_into_the_dealer() -> None:
    hub = SpectatorHub()
    broken = m.HandStarted(hand_number=1, game="FT", button_seat=0, your_seat=0, seats=("not a seat",),
                           stakes=Rules().stakes, deal_id="d", game_hand_number=1)  # type: ignore[arg-type]
    hub.event_watched(_notice(1, broken))  # no exception reaches the table
    assert hub.snapshot() == [{"match_id": "x", "status": "unavailable"}]


def _hand_started(k: int) -> m.Notice:
    return _notice(k + 1, m.HandStarted(hand_number=k, game="FT", button_seat=0, your_seat=0, seats=(_seat(0),
        _seat(1)), stakes=Rules().stakes, deal_id="d", game_hand_number=1),
                   hand_id=f"x-h{k}")


def _in_a_thread(main: Any) -> Any:
    # A thread of its own: Playwright's sync API may keep a loop running in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result(timeout=30)


def test_closing_the_hub_ends_every_stream_after_what_it_still_had_to_send() -> None:
    """The web server stops at the league's end: a spectator's stream gets the last change of
    its tables, then ``ended``, then ends (it held the server's shutdown for its grace period,
    which then cancelled it and logged an error)."""

    async def main() -> tuple[list[str], list[str]]:
        hub = SpectatorHub()
        stream = hub.stream()
        assert (await stream.__anext__()).startswith("retry")
        reading = asyncio.ensure_future(_read_all(stream))
        await asyncio.sleep(0)  # the stream waits for a change
        hub.event_watched(_hand_started(1))  # not flushed yet: close sends it
        hub.close()
        read = await asyncio.wait_for(reading, 5)
        late = [text async for text in hub.stream()]  # a spectator arriving after the close
        return read, late

    read, late = _in_a_thread(main)
    assert [text.split("\n")[0] for text in read] == ["event: table", "event: ended"]
    assert late == [ENDED]


def test_a_dropped_spectator_stream_ends_once_it_has_read_its_queue() -> None:
    """Dropped because its queue was full, so the wake-up could not be queued: it used to wait
    for more forever, sending keep-alives."""

    async def main() -> int:
        hub = SpectatorHub()
        stream = hub.stream()
        assert (await stream.__anext__()).startswith("retry")
        for k in range(QUEUE_ITEMS + 1):
            hub.event_watched(_hand_started(k))
            hub.flush()
        assert hub.dropped_spectators == 1
        read = await asyncio.wait_for(_read_all(stream), 5)
        return "".join(read).count("event: table\n")

    assert _in_a_thread(main) == 1 + QUEUE_ITEMS  # the table as it is now, then the queue


async def _read_all(stream: AsyncIterator[str]) -> list[str]:
    return [text async for text in stream]
