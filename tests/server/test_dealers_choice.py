"""Dealer's choice over gRPC (docs/house-rules.md §28): the SDK's example bots choose the game
before each orbit, the match plays to the end, every seat is told each choice (GameChanged),
the event log records who chose, and `arena replay` replays the logged hands exactly."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena_bot import Action, PlayResult, SeatView, play
from arena_bot.examples import mixed, random_bot, rule_based

from arena.engine.rules import Rules
from arena.host.phhfile import load_file
from arena.storage.replay import replay_paths
from arena.v1 import arena_pb2 as pb
from tests.server.harness import make_config, running, token_for

MENU = ["FT", "F7S", "NT", "F2L3D"]


def _watching(bot: Callable[[SeatView], Any], seen: list[tuple[int, list[str], str]]
              ) -> Callable[[SeatView], Any]:
    """``bot``, noting every dealer's-choice request it gets: (hand number, menu, default)."""
    def choose(view: SeatView) -> Any:
        if view.is_game_choice:
            assert view.street == "game choice" and not view.hole_cards and not view.board
            seen.append((view.request.hand_number, view.choosable_games, view.game))
        return bot(view)
    return choose


_REASONS = {pb.AUTOMATIC_REASON_UNSPECIFIED: None, pb.AUTOMATIC_REASON_TIMEOUT: "timeout",
            pb.AUTOMATIC_REASON_ABSENT: "absent"}


def _changes(into: dict[int, dict[str, Any]], refusals: list[pb.ActionRejected] | None = None
             ) -> Callable[[pb.DealerMessage], None]:
    """An ``on_message`` keeping each GameChanged event a seat is sent, by its first hand (and
    each refusal in ``refusals``)."""
    def seen(message: pb.DealerMessage) -> None:
        if message.WhichOneof("payload") == "action_rejected" and refusals is not None:
            refusals.append(message.action_rejected)
        if message.WhichOneof("payload") == "event" and message.event.HasField("game_changed"):
            c = message.event.game_changed
            into[c.first_hand_number] = {
                "game": c.game_code, "previous": c.previous_game_code,
                "dealers_choice": c.dealers_choice, "chooser_seat": c.chooser_seat,
                "automatic": _REASONS[c.automatic_reason], "hands": c.hands}
    return seen


def test_a_dealers_choice_match_over_grpc_plays_to_the_end_and_replays(tmp_path: Path) -> None:
    """Three SDK bots (the rule-based, the random and the mixed one, which declares a strategy
    over the menu) at a three-seat table: an orbit is three hands, the first orbit's chooser is
    the button and the choice moves one seat on each orbit; every hand is dealt in the chosen
    game; no reply is refused; the logs replay."""
    hands = 12  # four orbits
    config = make_config(tmp_path, ["rules", "random", "mixed"], hands=hands, seed=11,
                         rules={"games": MENU, "dealers_choice": True,
                                "decision_seconds": 5.0, "choice_seconds": 5.0})
    seen: list[tuple[int, list[str], str]] = []
    by_hand: dict[int, dict[str, Any]] = {}

    async def scenario() -> list[PlayResult]:
        async with running(config) as (server, address):
            results = await asyncio.gather(
                play(_watching(rule_based, seen), server=address, token=token_for("rules"),
                     name="rules", on_message=_changes(by_hand)),
                play(_watching(random_bot(5), seen), server=address, token=token_for("random"),
                     name="random"),
                play(_watching(mixed, seen), server=address, token=token_for("mixed"),
                     name="mixed"))
            await server.run_until_done()
        return list(results)

    results = asyncio.run(scenario())
    for result in results:
        assert result.final_status == "OK" and result.matches_over
        assert (result.rejections, result.fallbacks, result.exceptions, result.timeouts) == (
            0, 0, 0, 0)
    # One request per orbit, before its first hand, listing the menu; the default offered is
    # the menu's first game, then the game after the one dealt (§28).
    assert [hand for hand, _, _ in seen] == [1, 4, 7, 10]
    assert all(menu == MENU for _, menu, _ in seen)
    logs = tmp_path / "logs"
    # Every seat is told each choice before the orbit's first hand (GameChanged).
    assert sorted(by_hand) == [1, 4, 7, 10]
    assert all(c["dealers_choice"] and c["automatic"] is None and c["hands"] == 3
               for c in by_hand.values())
    choosers = [by_hand[h]["chooser_seat"] for h in (1, 4, 7, 10)]
    assert len(set(choosers[:3])) == 3 and choosers[3] == choosers[0]  # each seat in turn
    defaults = [default for _, _, default in seen]
    assert defaults[0] == MENU[0]
    for k in range(1, 4):
        dealt = by_hand[1 + 3 * (k - 1)]["game"]
        assert defaults[k] == MENU[(MENU.index(dealt) + 1) % len(MENU)]
    played = load_file(str(logs / "match.phhs"))
    assert len(played) == hands
    for number, hand in enumerate(played, start=1):
        orbit_start = 1 + 3 * ((number - 1) // 3)
        assert hand.fields["variant"] == by_hand[orbit_start]["game"], number
    out = io.StringIO()
    assert replay_paths([str(logs / "match.phhs")], rules=Rules(), show=False, hand_id=None,
                        out=out) == 0, out.getvalue()


def test_a_silent_chooser_gets_the_next_game_and_illegal_choices_are_refused(
        tmp_path: Path) -> None:
    """§28: a game not on the menu, and a betting action, are refused in words with the
    decision still open (the SDK's fallback then chooses the menu's first game); a chooser that
    never answers gets the menu's next game after the current one, reported as a timeout."""
    config = make_config(tmp_path, ["picky", "sleepy"], hands=6, seed=3,
                         rules={"games": ["FT", "F7S", "FR"], "dealers_choice": True,
                                "decision_seconds": 5.0, "choice_seconds": 0.3})
    tries = [0]
    messages: list[str] = []
    changes: dict[int, dict[str, Any]] = {}
    refusals: list[pb.ActionRejected] = []

    def picky(view: SeatView) -> Action:
        if view.is_game_choice:
            tries[0] += 1
            return view.choose_game("NT") if tries[0] % 2 else view.call()
        return view.check_or_call()

    async def sleepy(view: SeatView) -> Action:
        if view.is_game_choice:
            await asyncio.sleep(1.0)  # past the choice's time limit (no time bank)
        return view.check_or_call()

    async def scenario() -> tuple[PlayResult, PlayResult]:
        import logging

        class Keep(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                messages.append(record.getMessage())

        handler = Keep(logging.WARNING)
        logging.getLogger("arena_bot").addHandler(handler)
        try:
            async with running(config) as (server, address):
                results = await asyncio.gather(
                    play(picky, server=address, token=token_for("picky"), name="picky",
                         on_message=_changes(changes, refusals)),
                    play(sleepy, server=address, token=token_for("sleepy"), name="sleepy"))
                await server.run_until_done()
        finally:
            logging.getLogger("arena_bot").removeHandler(handler)
        return results[0], results[1]

    picky_result, sleepy_result = asyncio.run(scenario())
    assert picky_result.final_status == "OK" and sleepy_result.final_status == "OK"
    # Heads-up: orbits of two hands, the choosers alternate, so each chose (or not) 1-2 times.
    assert tries[0] >= 1 and picky_result.rejections == picky_result.fallbacks == tries[0]
    said = "\n".join(messages)
    assert "NT is not on this match's menu; choose one of FT, F7S, FR" in said
    # Clear statuses, the decision still open, the refused action echoed with its game.
    assert refusals and all(r.retry_allowed and r.time_left_seconds > 0 for r in refusals)
    assert {r.code for r in refusals} == {pb.REJECT_CODE_FAILED_PRECONDITION}
    assert any(r.rejected_action.game == pb.GAME_NO_LIMIT_HOLDEM for r in refusals)
    assert sleepy_result.timeouts >= 1
    assert sorted(changes) == [1, 3, 5]
    menu = ["FT", "F7S", "FR"]
    previous = None
    for hand in (1, 3, 5):
        change = changes[hand]
        if change["automatic"] == "timeout":  # the sleepy seat: the next game of the menu
            expected = menu[0] if previous is None else menu[(menu.index(previous) + 1) % 3]
            assert change["game"] == expected
        else:  # the picky seat: refused twice at most, then its SDK chose the menu's first
            assert change["automatic"] is None and change["game"] == "FT"
        previous = change["game"]
    assert {c["automatic"] for c in changes.values()} == {None, "timeout"}
    played = load_file(str(tmp_path / "logs" / "match.phhs"))
    assert [h.fields["variant"] for h in played] == [
        changes[1 + 2 * (k // 2)]["game"] for k in range(6)]
    out = io.StringIO()
    assert replay_paths([str(tmp_path / "logs" / "match.phhs")], rules=Rules(), show=False,
                        hand_id=None, out=out) == 0, out.getvalue()
