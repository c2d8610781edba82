"""The live table runner on trio's fake clock, with scripted in-process bots (no gRPC).

docs/house-rules.md §6: a decision waits for its time limit plus the seat's bank; the bank is spent only
by overruns; a silent or absent seat checks or folds (a due bring-in is posted); invalid and
late replies change nothing. Absent seats still post and are dealt in but never get the button.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest
import trio

from arena.engine.actions import ActionKind
from arena.engine.errors import MalformedAction, StaleDecision
from arena.engine.rules import Rules
from arena.match import messages as m
from arena.match.live import LiveTable
from arena.match.lobby import Lobby
from arena.match.spec import MatchSpec, SeatSpec
from tests.match.scripted import Say, Script, ScriptedBot, passive, silent

pytestmark = pytest.mark.timeout(30)


def spec(names: list[str], *, game: str, hands: int, decision: float = 2.0, bank: float = 5.0,
         start_timeout: float = 1.0) -> MatchSpec:
    rules = Rules.from_mapping({"games": [game], "decision_seconds": decision,
                                "time_bank_seconds": bank})
    return MatchSpec("m", tuple(SeatSpec(n, n) for n in names), rules, hands, 3, start_timeout)


async def play(match: MatchSpec, scripts: Mapping[str, Script], *, absent: frozenset[str] = frozenset()
               ) -> tuple[LiveTable, dict[str, ScriptedBot]]:
    lobby = Lobby()
    table = LiveTable(match, lobby)
    bots = {name: ScriptedBot(lobby, name, script) for name, script in scripts.items()}
    async with trio.open_nursery() as nursery:
        for name, bot in bots.items():
            if name not in absent:
                bot.attach()
            nursery.start_soon(bot.run)
        await table.run()
        await trio.sleep(10.0)  # fake time: let replies scheduled after the end arrive
        nursery.cancel_scope.cancel()
    return table, bots


def default_kind(prompt: m.Prompt) -> ActionKind:
    kinds = {c.kind for c in prompt.legal}
    if ActionKind.BRING_IN in kinds:
        return ActionKind.BRING_IN
    return ActionKind.CHECK if ActionKind.CHECK in kinds else ActionKind.FOLD


@pytest.mark.trio
async def test_a_silent_seat_waits_out_time_and_bank_then_checks_or_folds(
        autojump_clock: trio.abc.Clock) -> None:
    table, bots = await play(spec(["quiet", "loud"], game="F7S", hands=6),
                             {"quiet": silent, "loud": passive})
    prompts = bots["quiet"].items(m.Prompt)
    actions = bots["loud"].actions_of(0)
    assert len(prompts) == len(actions) >= 6
    kinds = set()
    for k, ((asked_at, prompt), (acted_at, record)) in enumerate(zip(prompts, actions, strict=True)):
        assert isinstance(prompt, m.Prompt)
        bank = 5.0 if k == 0 else 0.0  # the first timeout spends the whole bank
        assert prompt.decision_time_left_seconds == pytest.approx(2.0)
        assert prompt.time_bank_left_seconds == pytest.approx(bank)
        assert acted_at - asked_at == pytest.approx(2.0 + bank)
        assert record.automatic is m.AutoReason.TIMEOUT
        assert record.kind.value == default_kind(prompt).value
        kinds.add(record.kind)
    assert m.RecordKind.BRING_IN in kinds  # the forced bring-in is posted for a silent seat
    assert table.stats.timeouts == len(prompts)
    assert max(table.stats.lateness_seconds) == pytest.approx(0.0, abs=1e-9)
    assert table.summary is not None and sum(r.net_chips for r in table.summary.results) == 0


@pytest.mark.trio
async def test_overruns_spend_the_bank_and_bad_or_late_replies_change_nothing(
        autojump_clock: trio.abc.Clock) -> None:
    def script(prompt: m.Prompt, count: int) -> list[Say]:
        kind = passive(prompt, count)[0].kind
        return {
            1: [Say(3.0, kind)],  # 1 s over the limit: the bank goes from 5 to 4
            2: [Say(1.0, kind)],  # within the limit: the bank stays 4
            3: [Say(0.5, None), Say(1.0, kind)],  # malformed, then a good answer in time
            4: [Say(6.5, kind)],  # after the deadline (2 + 4): stale, acted for at 6.0
        }.get(count, [Say(0.0, kind)])

    table, bots = await play(spec(["a", "b"], game="FT", hands=4), {"a": script, "b": passive})
    a = bots["a"]
    prompts = [p for _, p in a.items(m.Prompt)]
    banks = [p.time_bank_left_seconds for p in prompts[:5]]  # type: ignore[attr-defined]
    assert banks == pytest.approx([5.0, 4.0, 4.0, 4.0, 0.0])
    rejections = [r for _, r in a.items(m.Rejection)]
    assert len(rejections) == 2
    bad, late = rejections
    assert isinstance(bad, m.Rejection) and isinstance(late, m.Rejection)
    assert isinstance(bad.error, MalformedAction) and bad.retry_allowed
    assert bad.time_left_seconds == pytest.approx(2.0 + 4.0 - 0.5)
    assert isinstance(late.error, StaleDecision) and not late.retry_allowed
    assert late.decision_id == prompts[3].decision_id  # type: ignore[attr-defined]
    seat = prompts[0].seat  # type: ignore[attr-defined]
    records = [r for _, r in bots["b"].actions_of(seat)]
    assert [r.automatic for r in records[:5]] == [None, None, None, m.AutoReason.TIMEOUT, None]
    assert table.stats.rejected == 1  # the stale one never reached the engine


@pytest.mark.trio
async def test_an_absent_seat_posts_is_dealt_in_acts_at_once_and_never_has_the_button(
        autojump_clock: trio.abc.Clock) -> None:
    table, bots = await play(spec(["gone", "b", "c"], game="FT", hands=9, start_timeout=1.0),
                             {"gone": silent, "b": passive, "c": passive},
                             absent=frozenset({"gone"}))
    b = bots["b"]
    ((ended_at, _),) = b.notices(m.MatchEnded)
    assert ended_at == pytest.approx(1.0)  # waited for it once at the start, then never again
    assert bots["gone"].log == []
    buttons = [n.payload.button_seat for _, n in b.notices(m.HandStarted)]  # type: ignore[attr-defined]
    assert len(buttons) == 9 and 0 not in buttons
    dealt = [n.payload.seat for _, n in b.notices(m.CardsDealt)]  # type: ignore[attr-defined]
    assert dealt.count(0) == 9
    posts = [n.payload.action for _, n in b.notices(m.ActionTaken)  # type: ignore[attr-defined]
             if n.payload.action.seat == 0 and n.payload.action.kind.value.startswith("post_")]
    assert posts  # blinds are posted for it
    own = b.actions_of(0)
    assert own and all(r.automatic is m.AutoReason.ABSENT for _, r in own)
    for _, prompt in b.items(m.Prompt):
        assert prompt.seats[0].status in (m.SeatStatus.ABSENT,  # type: ignore[attr-defined]
                                          m.SeatStatus.FOLDED, m.SeatStatus.ALL_IN)
    assert table.stats.absent_actions == len(own)


@pytest.mark.trio
async def test_a_bot_that_reconnects_gets_its_open_decision_again(
        autojump_clock: trio.abc.Clock) -> None:
    lobby = Lobby()
    table = LiveTable(spec(["a", "b"], game="FT", hands=12), lobby)
    events: list[str] = []

    async def drop_and_return(bot: ScriptedBot, away_seconds: float) -> None:
        await trio.sleep(1.0)
        bot.detach()
        events.append(f"detach {trio.current_time():.1f}")
        await trio.sleep(away_seconds)
        bot.attach()
        events.append(f"attach {trio.current_time():.1f}")

    async with trio.open_nursery() as nursery:
        def script(prompt: m.Prompt, count: int) -> list[Say]:
            if count == 1:  # away for 0.5 s, back before the limit: answer the re-sent prompt
                nursery.start_soon(drop_and_return, a, 0.5)
                return []
            if count == 3:  # away past the deadline (2 + 5 s): acted for, as absent
                nursery.start_soon(drop_and_return, a, 10.0)
                return []
            return passive(prompt, count)

        def slow(prompt: m.Prompt, count: int) -> list[Say]:
            return [Say(0.5, passive(prompt, count)[0].kind)]

        a = ScriptedBot(lobby, "a", script)
        b = ScriptedBot(lobby, "b", slow)
        for bot in (a, b):
            bot.attach()
            nursery.start_soon(bot.run)
        await table.run()
        nursery.cancel_scope.cancel()

    prompts = a.items(m.Prompt)
    (t1, first), (t2, again) = prompts[0], prompts[1]
    assert isinstance(first, m.Prompt) and isinstance(again, m.Prompt)
    assert again.decision_id == first.decision_id  # re-sent on reconnect
    assert t2 - t1 == pytest.approx(1.5)
    assert again.decision_time_left_seconds == pytest.approx(0.5)
    assert again.time_bank_left_seconds == pytest.approx(5.0)
    seat = first.seat
    records = b.actions_of(seat)
    assert records[0][1].automatic is None and records[0][0] == pytest.approx(t2)
    (t3, third) = prompts[2]
    assert isinstance(third, m.Prompt)
    timed_out = [(t, r) for t, r in records if r.automatic is not None]
    assert timed_out[0][1].automatic is m.AutoReason.ABSENT
    assert timed_out[0][0] - t3 == pytest.approx(7.0)
    # While away, its decisions are made at once; after returning it is asked again.
    away = [(t, r) for t, r in records if t3 + 6.9 < t < t3 + 10.9]
    assert len(away) >= 2 and all(r.automatic is m.AutoReason.ABSENT for _, r in away)
    back = [(t, r) for t, r in records if t > t3 + 11.0]
    assert back and all(r.automatic is None for _, r in back)
    assert events == [f"detach {t1 + 1:.1f}", f"attach {t1 + 1.5:.1f}", f"detach {t3 + 1:.1f}",
                      f"attach {t3 + 11:.1f}"]
    assert table.summary is not None and not table.summary.aborted
    assert sum(r.net_chips for r in table.summary.results) == 0
