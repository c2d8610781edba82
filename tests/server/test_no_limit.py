"""No-limit and pot-limit over gRPC (docs/house-rules.md §4): the SDK's example bots play NT, PO and PT
within the "raise to" bounds the decision requests carry, and the match log replays."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

import pytest
from arena_bot import play
from arena_bot.examples import random_bot, rule_based
from arena_bot.view import Action, SeatView

from arena.engine.phh import iter_replays
from arena.host.phhfile import load_file
from tests.server.harness import make_config, running, token_for

pytestmark = pytest.mark.timeout(120)


def test_sdk_bots_play_no_limit_and_pot_limit_within_the_bounds(tmp_path: Path) -> None:
    """docs/house-rules.md §4: every RAISE offered carries `any_amount` and bounds; the random bot picks
    amounts anywhere in them, the rule-based bot minimum raises; no reply is rejected, the
    table rotates NT, PO and PT (written as NT with `_betting`), antes by the big blind."""
    names = ["rnd1", "rnd2", "rules"]
    config = make_config(tmp_path, names, hands=24, rules={
        "games": ["NT", "PO", {"game": "NT", "betting": "pot-limit"}], "hands_per_game": 4,
        "ante_kind": "big_blind", "decision_seconds": 5.0})
    seen: list[tuple[str, int, int, bool]] = []  # game, min, max, any_amount

    def watching(bot: object) -> object:
        def choose(view: SeatView) -> Action:
            choice = view.choices.get(Action.RAISE)
            if choice is not None:
                seen.append((view.game, choice.min_to_chips, choice.max_to_chips,
                             choice.any_amount))
            action = bot(view)  # type: ignore[operator]
            if action.kind == Action.RAISE:
                assert choice is not None
                assert choice.min_to_chips <= action.raise_to_chips <= choice.max_to_chips
            return action  # type: ignore[no-any-return]
        return choose

    bots = {"rnd1": random_bot(1), "rnd2": random_bot(2), "rules": rule_based}

    async def scenario() -> None:
        async with running(config) as (server, address):
            results = await asyncio.gather(*(
                play(watching(bots[n]), server=address, token=token_for(n), name=n)  # type: ignore[arg-type]
                for n in names))
            await server.run_until_done()
        assert all(r.final_status == "OK" and r.decisions > 0 for r in results)
        (summary,) = server.summaries()
        assert summary.hands_played == 24
        assert summary.stats.rejected == 0 and summary.stats.timeouts == 0

    asyncio.run(scenario())
    assert {g for g, *_ in seen} == {"NT", "PO", "PT"}
    assert all(any_amount for *_, any_amount in seen)
    assert any(low < high for _, low, high, _ in seen)
    (log,) = (tmp_path / "logs").rglob("*.phhs")
    variants = {h["variant"] for h in tomllib.loads(log.read_text()).values()}
    assert variants == {"NT", "PO"}
    for _hand, _state, error in iter_replays(load_file(str(log))):
        assert error is None
