"""ScriptedBot: an in-process seat for the trio table runner, answering from a script."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import trio

from arena.engine.actions import ActionKind
from arena.match import messages as m
from arena.match.lobby import Lobby
from arena.match.spec import MatchSpec


@dataclass(frozen=True)
class Say:
    """Answer a prompt after ``after_seconds`` (table clock) with ``kind``/``raise_to``."""

    after_seconds: float
    kind: ActionKind | None
    raise_to_chips: int | None = None
    seat_offset: int = 0  # answer for another seat (to test PERMISSION_DENIED)


Script = Callable[[m.Prompt, int], list[Say]]  # (prompt, how many prompts so far) -> answers


def passive(prompt: m.Prompt, _count: int) -> list[Say]:
    """Bring in, check or call at once."""
    kinds = {c.kind for c in prompt.legal}
    for kind in (ActionKind.BRING_IN, ActionKind.CHECK, ActionKind.CALL):
        if kind in kinds:
            return [Say(0.0, kind)]
    return [Say(0.0, ActionKind.FOLD)]


def silent(_prompt: m.Prompt, _count: int) -> list[Say]:
    return []


class ScriptedBot:
    """Receives what the table sends (an Outbox) and answers prompts from its script."""

    def __init__(self, lobby: Lobby, bot_id: str, script: Script = passive) -> None:
        self.lobby = lobby
        self.bot_id = bot_id
        self.script = script
        self.log: list[tuple[float, m.Outgoing]] = []
        self._send, self._receive = trio.open_memory_channel[m.Outgoing](math.inf)
        self.prompts = 0

    def deliver(self, item: m.Outgoing) -> None:
        self._send.send_nowait(item)

    def attach(self) -> None:
        self.lobby.attach(self.bot_id, self)

    def detach(self) -> None:
        self.lobby.detach(self.bot_id, self)

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            async for item in self._receive:
                self.log.append((trio.current_time(), item))
                if isinstance(item, m.Prompt):
                    self.prompts += 1
                    for say in self.script(item, self.prompts):
                        nursery.start_soon(self._answer, item, say)

    async def _answer(self, prompt: m.Prompt, say: Say) -> None:
        await trio.sleep(say.after_seconds)
        self.lobby.submit(self.bot_id, m.Reply(decision_id=prompt.decision_id,
                                               seat=prompt.seat + say.seat_offset,
                                               kind=say.kind, raise_to_chips=say.raise_to_chips))

    # ------------------------------------------------------------------ reading the log

    def items(self, kind: type) -> list[tuple[float, object]]:
        return [(t, i) for t, i in self.log if isinstance(i, kind)]

    def notices(self, payload: type) -> list[tuple[float, m.Notice]]:
        return [(t, i) for t, i in self.log
                if isinstance(i, m.Notice) and isinstance(i.payload, payload)]

    def actions_of(self, seat: int) -> list[tuple[float, m.ActionRecord]]:
        out = []
        for t, notice in self.notices(m.ActionTaken):
            assert isinstance(notice.payload, m.ActionTaken)
            record = notice.payload.action
            if record.seat == seat and not record.kind.value.startswith("post_"):
                out.append((t, record))
        return out


def play_with_scripted_bots(spec: MatchSpec, bot_ids: Sequence[str],
                            bot_class: type[ScriptedBot] = ScriptedBot, *,
                            sink: object = None) -> dict[str, ScriptedBot]:
    """Run ``spec`` on a fake clock with a passive scripted bot per bot id (and ``sink``, a
    `MatchSink`); the bots afterwards."""
    import trio.testing

    from arena.match.live import LiveTable

    async def main() -> dict[str, ScriptedBot]:
        lobby = Lobby()
        table = LiveTable(spec, lobby, sink=sink)  # type: ignore[arg-type]
        bots = {b: bot_class(lobby, b) for b in bot_ids}
        async with trio.open_nursery() as nursery:
            for bot in bots.values():
                bot.attach()
                nursery.start_soon(bot.run)
            await table.run()
            await trio.sleep(1.0)
            nursery.cancel_scope.cancel()
        return bots

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
