"""Rejections speak the bot's language: its own table seat, and what it may do instead."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.engine.actions import LegalActions
from arena.match.explain import allowed, in_table_seats
from arena.v1 import arena_pb2 as pb
from tests.server.harness import RawBot, make_config, running, token_for

pytestmark = pytest.mark.timeout(90)


async def _raiser(bot: RawBot) -> None:
    """Raises whenever it may, else checks or calls, until the stream ends."""
    while (message := await bot.recv(20.0)) is not None:
        if message.WhichOneof("payload") != "decision_request":
            continue
        req = message.decision_request
        legal = {la.kind: la for la in req.legal_actions}
        if pb.ACTION_KIND_RAISE in legal:
            await bot.reply(req.decision_id, req.your_seat, pb.ACTION_KIND_RAISE,
                            legal[pb.ACTION_KIND_RAISE].min_raise_to_chips)
        else:
            kind = pb.ACTION_KIND_CHECK if pb.ACTION_KIND_CHECK in legal else pb.ACTION_KIND_CALL
            await bot.reply(req.decision_id, req.your_seat, kind)


def test_a_rejection_names_the_bots_table_seat_and_what_is_allowed(tmp_path: Path) -> None:
    """docs/house-rules.md §6: an invalid action is rejected with a clear error; seat 1 is told "seat 1"
    whatever its place in the dealing order (the button alternates, so both orders occur)."""
    config = make_config(tmp_path, ["zero", "one"], hands=4,
                         rules={"games": ["FT"], "decision_seconds": 10.0})
    rejections: list[tuple[str, str]] = []  # (decision id, message)

    async def scenario() -> None:
        async with running(config) as (server, address):
            zero = await RawBot(address, token_for("zero"), name="zero").connect()
            one = await RawBot(address, token_for("one"), name="one").connect()
            raiser = asyncio.ensure_future(_raiser(zero))
            while (message := await one.recv(20.0)) is not None:
                if message.WhichOneof("payload") != "decision_request":
                    continue
                req = message.decision_request
                assert req.your_seat == 1
                legal = {la.kind for la in req.legal_actions}
                if pb.ACTION_KIND_CHECK not in legal:  # facing a bet: try to check first
                    await one.reply(req.decision_id, 1, pb.ACTION_KIND_CHECK)
                    rejected = await one.reject()
                    rejections.append((rejected.decision_id, rejected.message))
                await one.reply(req.decision_id, 1, pb.ACTION_KIND_CALL
                                if pb.ACTION_KIND_CALL in legal else pb.ACTION_KIND_CHECK)
            await raiser
            await server.run_until_done()

    asyncio.run(scenario())
    hands = {decision_id.rsplit("-d", 1)[0] for decision_id, _ in rejections}
    assert len(hands) >= 2, rejections  # the button moved: both dealing orders were tested
    for _, text in rejections:
        assert text.startswith("seat 1 may not check: "), text
        assert "seat 0" not in text
        assert "; allowed: call (to " in text and text.endswith(" or fold"), text


@pytest.mark.no_dealer
def test_messages_in_table_seats_and_allowed_actions() -> None:
    assert in_table_seats("seat 0 acted but seat 1 is to act", (1, 0)) == \
        "seat 1 acted but seat 0 is to act"
    assert in_table_seats("seat 0 may not check: 10 to call", (3, 5, 1)) == "seat 3 may not check: 10 to call"
    bring_in = LegalActions(seat=0, can_fold=False, can_check=False, call_to_chips=None,
                            call_is_all_in=False, bring_in_to_chips=5, raise_min_to=20,
                            raise_max_to=20, raise_is_all_in=False)
    assert allowed(bring_in) == "post the bring-in (5) or complete to 20"
    facing = LegalActions(seat=1, can_fold=True, can_check=False, call_to_chips=20,
                          call_is_all_in=False, bring_in_to_chips=None, raise_min_to=40,
                          raise_max_to=40, raise_is_all_in=False)
    assert allowed(facing) == "call (to 20), raise to 40 or fold"
