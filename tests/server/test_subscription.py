"""Requests-and-results bots (Hello.subscription): a full H.O.R.S.E. match over gRPC where half
the seats get requests and results only. Each of them can rebuild every hand exactly (actions,
board, seats, results, as an every-event bot saw them), sees no hidden card of another seat
(docs/house-rules.md §9), and gets no per-action event; every-event bots get exactly what they got
before (no hand record in their HandEnded)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from pathlib import Path

import pytest
from arena_bot import play
from arena_bot.examples import BOTS
from google.protobuf.json_format import MessageToDict

from arena.host.phhfile import load_file
from arena.v1 import arena_pb2 as pb
from tests.server.harness import make_config, running, token_for
from tests.server.test_hiding import TrueDeal, cards_in

pytestmark = pytest.mark.timeout(60)

KINDS = ["random", "call", "random", "call"]
NAMES = [f"{k}{i}" for i, k in enumerate(KINDS)]
CHEAP = {NAMES[0], NAMES[1]}  # requests and results only
RESULT_EVENTS = {"match_started", "duplicate_copy_started", "game_changed", "hand_started",
                 "cards_dealt", "showdown", "hand_ended", "match_ended"}


def _event_kind(message: pb.DealerMessage) -> str:
    return message.event.WhichOneof("payload") or ""


def test_a_requests_only_bot_plays_a_full_match_and_rebuilds_every_hand(tmp_path: Path) -> None:
    config = make_config(tmp_path, NAMES, hands=24, seed=5,
                         rules={"decision_seconds": 5.0, "time_bank_seconds": 5.0})
    recorded: dict[str, list[pb.DealerMessage]] = {n: [] for n in NAMES}

    async def scenario() -> None:
        async with running(config) as (server, address):
            bots = [play(BOTS[kind](i), server=address, token=token_for(name), name=name,
                         reconnect_seconds=2.0, on_message=recorded[name].append,
                         events=name not in CHEAP)
                    for i, (kind, name) in enumerate(zip(KINDS, NAMES, strict=True))]
            results = await asyncio.wait_for(asyncio.gather(*bots), 45)
            await server.run_until_done()
        assert all(r.final_status == "OK" and len(r.matches_ended) == 1 for r in results)
        (summary,) = server.summaries()
        assert summary.hands_played == 24 and not summary.aborted

    asyncio.run(scenario())
    hands = load_file(str(tmp_path / "logs" / "match.phhs"))
    assert {h.fields["variant"] for h in hands} == {"FT", "FO/8", "FR", "F7S", "F7S/8"}
    deals = {h.fields["_hand_id"]: TrueDeal(h) for h in hands}

    # What an every-event bot saw of each hand: its actions, board, results; and the seats.
    full = recorded[NAMES[2]]
    truth_actions: dict[str, list[dict[str, object]]] = defaultdict(list)
    truth_board: dict[str, list[str]] = defaultdict(list)
    truth_ended: dict[str, pb.HandEnded] = {}
    for message in full:
        kind = _event_kind(message)
        hand_id = message.event.hand_id
        if kind == "action_taken":
            truth_actions[hand_id].append(MessageToDict(message.event.action_taken.action))
        elif kind == "board_dealt":
            truth_board[hand_id] = list(message.event.board_dealt.board_cards)
        elif kind == "hand_ended":
            ended = message.event.hand_ended
            assert not ended.actions and not ended.board_cards and not ended.seats
            truth_ended[hand_id] = ended
    assert len(truth_ended) == 24

    for seat, name in enumerate(NAMES[:2]):
        kinds = {_event_kind(m) for m in recorded[name] if m.WhichOneof("payload") == "event"}
        assert kinds <= RESULT_EVENTS, kinds
        rebuilt = 0
        shown: set[str] = set()
        for message in recorded[name]:
            if message.WhichOneof("payload") == "decision_request":
                hand_id = message.decision_request.hand_id
            elif message.WhichOneof("payload") == "event" and message.event.hand_id:
                hand_id = message.event.hand_id
            else:
                continue
            deal = deals[hand_id]
            kind = _event_kind(message)
            if kind == "cards_dealt":
                assert message.event.cards_dealt.seat == seat  # only its own cards
            if kind == "showdown":
                shown = deal.shown
            allowed = deal.own[seat] | deal.public | shown
            assert cards_in(message) <= allowed, (name, hand_id, cards_in(message) - allowed)
            if kind != "hand_ended":
                continue
            shown = set()
            ended = message.event.hand_ended
            truth = truth_ended[hand_id]
            assert [MessageToDict(a) for a in ended.actions] == truth_actions[hand_id]
            assert list(ended.board_cards) == truth_board[hand_id]
            assert list(ended.results) == list(truth.results)
            assert list(ended.awards) == list(truth.awards)
            final = {s.seat: s.stack_chips for s in ended.seats}
            assert {r.seat: r.final_stack_chips for r in ended.results} == {
                r.seat: final[r.seat] for r in ended.results}
            rebuilt += 1
        assert rebuilt == 24


def test_the_python_sdk_asks_for_requests_and_results_unless_it_reads_events(
        tmp_path: Path) -> None:
    """``play`` without ``on_message`` (the bot function sees requests only) subscribes to
    requests and results; with ``on_message`` it gets every event."""
    config = make_config(tmp_path, ["quiet", "reader"], hands=2, seed=3)
    seen: list[pb.DealerMessage] = []

    async def scenario() -> tuple[bool, bool]:
        async with running(config) as (server, address):
            bots = [play(BOTS["call"](0), server=address, token=token_for("quiet"), name="quiet",
                         reconnect_seconds=2.0),
                    play(BOTS["call"](1), server=address, token=token_for("reader"),
                         name="reader", reconnect_seconds=2.0, on_message=seen.append)]
            await asyncio.wait_for(asyncio.gather(*bots), 30)
            await server.run_until_done()
            lobby = server.lobby
            return lobby.presence("quiet").every_event, lobby.presence("reader").every_event

    quiet, reader = asyncio.run(scenario())
    assert (quiet, reader) == (False, True)
    assert any(_event_kind(m) == "action_taken" for m in seen)
