"""Issue 42 over gRPC: the `Showdown` event's hand descriptions of the lowball and wild-card
games, as a bot receives them on the wire (docs/house-rules.md §21-§24; the words are those of
arena.engine.describe_lowball and describe_wild, the event log stores the same payload)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from arena_bot import Action, SeatView, play
from arena_bot._proto import arena_pb2 as pb  # the SDK's generated messages

from tests.server.harness import make_config, running, token_for


def caller(view: SeatView) -> Action:
    """Stands pat and calls down: every hand reaches the showdown."""
    if view.is_exchange_round:
        return view.stand_pat()
    return view.check_or_call()


def test_showdown_words_on_the_wire(tmp_path: Path) -> None:
    games = ["F2L3D", "FLL", "F7SW", "FLH"]
    config = make_config(tmp_path, ["rules", "random"], hands=len(games) * 4, seed=11,
                         rules={"games": games, "hands_per_game": 4, "decision_seconds": 5.0})
    seen: list[tuple[str, pb.ShownHand]] = []
    game = [""]

    def on_message(message: pb.DealerMessage) -> None:
        if message.WhichOneof("payload") != "event":
            return
        event = message.event
        kind = event.WhichOneof("payload")
        if kind == "hand_started":
            game[0] = event.hand_started.game_code
        elif kind == "showdown":
            seen.extend((game[0], hand) for hand in event.showdown.hands)

    async def scenario() -> None:
        async with running(config) as (server, address):
            await asyncio.gather(
                play(caller, server=address, token=token_for("rules"), name="rules",
                     on_message=on_message),
                play(caller, server=address, token=token_for("random"), name="random"))
            await server.run_until_done()

    asyncio.run(scenario())
    by_game: dict[str, list[pb.ShownHand]] = {}
    for code, hand in seen:
        by_game.setdefault(code, []).append(hand)
    assert set(by_game) == set(games)
    lowball = re.compile(r"^([a-z]+-[a-z]+ low|low with [a-z ,]+): [2-9TJQKA](-[2-9TJQKA]){4}$")
    for code in ("F2L3D", "FLL"):  # §21, §22: a low only, in lowball words, with its five cards
        for hand in by_game[code]:
            assert hand.high_description == "" and lowball.match(hand.low_description), hand
            assert len(hand.low_cards) == 5
    for hand in by_game["F7SW"]:  # §23: deuces wild (the default) named
        deuces = [c for c in hand.cards if c.startswith("2")]
        assert (f"wild: {' '.join(deuces)})" in hand.high_description) == bool(deuces), hand
    for hand in by_game["FLH"]:  # §24: every hand names its own wild rank
        assert re.search(r"; [a-z]+s wild: ", hand.high_description), hand
