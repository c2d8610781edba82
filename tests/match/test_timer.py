"""One timer per table (arena.match.timer) and the reply box it expires (docs/house-rules.md §6)."""

from __future__ import annotations

import trio
import trio.testing

from arena.engine.actions import ActionKind
from arena.match import messages as m
from arena.match.lobby import ReplyBox
from arena.match.timer import DecisionTimer


def _reply(decision_id: str = "d1") -> m.Reply:
    return m.Reply(decision_id=decision_id, seat=0, kind=ActionKind.CALL, raise_to_chips=None)


def _run(main: object) -> object:
    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))  # type: ignore[arg-type]


def test_a_box_past_its_deadline_ends_the_wait_at_the_deadline() -> None:
    """docs/house-rules.md §6: the dealer stops waiting at the deadline (here 2 s), not before."""

    async def main() -> tuple[m.Reply | None, float]:
        timer = DecisionTimer()
        timer.start()
        box = ReplyBox(trio.current_time() + 2.0)
        timer.arm(box)
        reply = await box.get()
        timer.stop()
        return reply, trio.current_time()

    reply, at = _run(main)  # type: ignore[misc]
    assert reply is None
    assert at == 2.0


def test_an_earlier_deadline_moves_the_timer_forward() -> None:
    """A decision armed after a later one (another seat with a smaller bank) still ends on time."""

    async def main() -> tuple[float, float]:
        timer = DecisionTimer()
        timer.start()
        late = ReplyBox(trio.current_time() + 30.0)
        timer.arm(late)
        await trio.sleep(1.0)
        timer.disarm()  # answered
        early = ReplyBox(trio.current_time() + 2.0)
        timer.arm(early)
        assert await early.get() is None
        first = trio.current_time()
        timer.disarm()
        await trio.sleep(100.0)  # the timer's old wake-up finds nothing to expire
        later = ReplyBox(trio.current_time() + 5.0)
        timer.arm(later)
        assert await later.get() is None
        timer.stop()
        return first, trio.current_time()

    first, second = _run(main)  # type: ignore[misc]
    assert first == 3.0
    assert second == 108.0


def test_replies_before_the_deadline_are_read_and_late_ones_refused_at_close() -> None:
    async def main() -> tuple[m.Reply | None, m.Reply | None, list[m.Reply]]:
        box = ReplyBox(trio.current_time() + 1.0)
        box.put(_reply("in-time"))
        await trio.sleep(1.0)
        box.put(_reply("late"))  # at the deadline: too late
        first = await box.get()  # queued in time: still read
        second = await box.get()
        return first, second, box.close()

    first, second, left = _run(main)  # type: ignore[misc]
    assert first is not None and first.decision_id == "in-time"
    assert second is None
    assert [r.decision_id for r in left] == ["late"]


def test_the_timer_wakes_once_per_deadline_not_once_per_decision() -> None:
    """Decisions answered in time cost the timer no wake-up of its own."""

    async def main() -> int:
        timer = DecisionTimer()
        timer.start()
        for _ in range(100):  # 100 decisions answered within 0.01 s each, deadline 2 s
            box = ReplyBox(trio.current_time() + 2.0)
            timer.arm(box)
            await trio.sleep(0.01)
            box.put(_reply())
            assert await box.get() is not None
            timer.disarm()
        timer.stop()
        return 0

    wakes: list[float] = []

    class Count(trio.abc.Instrument):
        def before_task_step(self, task: trio.lowlevel.Task) -> None:
            if task.name == "decision timer":
                wakes.append(trio.current_time())

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0), instruments=[Count()])
    assert len(wakes) <= 3  # its start, one old deadline (at 2 s), its stop
