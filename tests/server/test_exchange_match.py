"""Issue 42 over gRPC: matches of the exchange and wild-card games between SDK bots play to
the end and `arena replay` replays their logs exactly (docs/house-rules.md §21-§26)."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from arena_bot import Action, PlayResult, SeatView, play
from arena_bot.examples import random_bot, rule_based

from arena.engine.rules import Rules
from arena.host.phhfile import load_file
from arena.storage.replay import replay_paths
from tests.server.harness import make_config, running, token_for


def drawer(seed: int) -> Callable[[SeatView], Action]:
    """Never folds, never raises; exchanges a random number of random cards of its own."""
    rng = random.Random(seed)
    exchange = random_bot(seed)

    def choose(view: SeatView) -> Action:
        if view.is_exchange_round:
            return exchange(view)
        return view.check_or_call() if rng.random() < 0.8 else view.bet_or_raise()

    return choose


def _match(tmp_path: Path, games: list[str], hands: int) -> tuple[PlayResult, PlayResult]:
    config = make_config(tmp_path, ["rules", "random"], hands=hands, seed=7,
                         rules={"games": games, "hands_per_game": 2, "decision_seconds": 5.0})

    async def scenario() -> tuple[PlayResult, PlayResult]:
        async with running(config) as (server, address):
            results = await asyncio.gather(
                play(rule_based, server=address, token=token_for("rules"), name="rules"),
                play(drawer(3), server=address, token=token_for("random"), name="random"))
            await server.run_until_done()
        return results[0], results[1]

    return asyncio.run(scenario())


@pytest.mark.parametrize("games", [["F2L3D"], ["FES", "F7SW", "FLH/8"]])
def test_sdk_bots_play_the_new_games_and_the_match_replays(tmp_path: Path,
                                                           games: list[str]) -> None:
    """Both bots answer every decision themselves, exchanges included (no rejection, no
    fallback); the logs hold every hand of each game; `arena replay` replays them."""
    hands = 2 * len(games) * 2
    rules_bot, random_player = _match(tmp_path, games, hands)
    for result in (rules_bot, random_player):
        assert result.final_status == "OK" and result.matches_over
        assert (result.rejections, result.fallbacks, result.exceptions) == (0, 0, 0)
        assert result.decisions > 0
    logs = tmp_path / "logs"
    played = load_file(str(logs / "match.phhs"))
    assert len(played) == hands
    assert {h.fields["variant"] for h in played} == set(games)
    # Exchanges of cards happened in each exchange game (PokerKit's `pN sd CARDS` lines).
    for game in {"F2L3D", "FES"} & set(games):
        assert any(len(a.split()) == 3 and a.split()[1] == "sd" for h in played
                   if h.fields["variant"] == game for a in h.fields["actions"]), game
    out = io.StringIO()
    assert replay_paths([str(logs / "match.phhs")], rules=Rules(), show=True, hand_id=None,
                        out=out) == 0, out.getvalue()
    # `--show` tells every exchange (docs/house-rules.md §26): one line per `sd`.
    shown = out.getvalue()
    sd_lines = sum(a.split()[1:2] == ["sd"] for h in played for a in h.fields["actions"])
    assert shown.count(" exchanges ") + shown.count(" stands pat") == sd_lines


def test_illegal_exchanges_over_grpc_are_refused_in_words_and_change_nothing(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """docs/house-rules.md §26: a name that is not a card, a card named twice, and a card the
    seat does not hold are each refused with the reason; the SDK then stands pat for the bot
    (its fallback), and every hand still replays exactly."""
    import logging

    from arena_bot.examples import calling_station

    caplog.set_level(logging.WARNING, logger="arena_bot")
    config = make_config(tmp_path, ["cheat", "station"], hands=4, seed=3,
                         rules={"games": ["F2L3D"], "decision_seconds": 5.0})
    tries = [0]

    def cheat(view: SeatView) -> Action:
        if not view.is_exchange_round:
            return view.check_or_call()
        tries[0] += 1
        mine = view.hole_cards
        other = next(c for c in ("2c", "3c", "4c", "5c", "6c", "7c") if c not in mine)
        return view.exchange([["Zz"], [mine[0], mine[0]], [other]][tries[0] % 3])

    async def scenario() -> PlayResult:
        async with running(config) as (server, address):
            result, _ = await asyncio.gather(
                play(cheat, server=address, token=token_for("cheat"), name="cheat"),
                play(calling_station, server=address, token=token_for("station"),
                     name="station"))
            await server.run_until_done()
        return result

    result = asyncio.run(scenario())
    assert result.final_status == "OK" and tries[0] >= 3
    assert result.rejections == result.fallbacks == tries[0]
    said = caplog.text
    assert "'Zz' is not a card" in said
    assert "names a card twice" in said or "twice" in said
    assert "does not hold" in said and "it may exchange only its own cards" in said
    assert "allowed: exchange up to 5 of your cards, or stand pat" in said
    out = io.StringIO()
    assert replay_paths([str(tmp_path / "logs" / "match.phhs")], rules=Rules(), show=False,
                        hand_id=None, out=out) == 0, out.getvalue()


def test_a_seat_that_does_not_answer_an_exchange_stands_pat(tmp_path: Path) -> None:
    """docs/house-rules.md §26: 'the timeout action is to stand pat' over gRPC: a bot that
    never answers in exchange rounds gets `pN sd` (no cards) and a timeout mark for each; the
    match ends and replays."""
    from arena_bot.examples import calling_station

    # A 2 s clock, no bank: a betting decision answered at once cannot time out on a loaded
    # machine (a 0.2 s one could, and its check/fold could end the hand before its draws). One
    # hand: both bots call down, so it has its three exchange rounds.
    config = make_config(tmp_path, ["sleepy", "station"], hands=1, seed=5,
                         rules={"games": ["F2L3D"], "decision_seconds": 2.0,
                                "time_bank_seconds": 0.0})

    async def sleepy(view: SeatView) -> Action:
        if view.is_exchange_round:
            await asyncio.sleep(2.5)  # past the decision time
        return view.check_or_call()

    async def scenario() -> None:
        async with running(config) as (server, address):
            await asyncio.gather(
                play(sleepy, server=address, token=token_for("sleepy"), name="sleepy"),
                play(calling_station, server=address, token=token_for("station"),
                     name="station"))
            await server.run_until_done()

    asyncio.run(scenario())
    played = load_file(str(tmp_path / "logs" / "match.phhs"))
    pats = timeouts = 0
    for hand in played:
        me = f"p{hand.fields['players'].index('sleepy') + 1}"
        mine = [a for a in hand.fields["actions"] if a.startswith(f"{me} sd")]
        assert all(a == f"{me} sd" for a in mine)  # stood pat for it, every time
        pats += len(mine)
        # Each of its exchange lines is marked as timed out (a call of a loaded machine may be
        # late too: those are marked on their own lines, not counted here).
        timeouts += sum(1 for line, why in hand.fields.get("_fault_lines", [])
                        if why == "timeout" and hand.fields["actions"][line - 1] == f"{me} sd")
    assert pats >= 3 and timeouts == pats
    out = io.StringIO()
    assert replay_paths([str(tmp_path / "logs" / "match.phhs")], rules=Rules(), show=True,
                        hand_id=None, out=out) == 0, out.getvalue()
    assert out.getvalue().count("stands pat (timed out)") == pats
