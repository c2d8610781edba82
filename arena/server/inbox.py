"""The bots' messages on their way from the streams into trio's lobby: decoded
(:class:`Deserializer`), then each reply checked, converted and handed over (:class:`ReplyInbox`).
"""

from __future__ import annotations

import logging
import time

from arena.match import messages as m
from arena.match.faults import BotFault, FaultKind, bounded_detail
from arena.match.lobby import Lobby
from arena.server import convert
from arena.server.bridge import TrioGuest
from arena.server.connection import Connection, Undecodable
from arena.server.stats import TransportStats
from arena.v1 import arena_pb2 as pb

log = logging.getLogger("arena.server")

FALLBACK_WHY = {pb.FALLBACK_AFTER_REJECTION: "after a rejected reply",
                pb.FALLBACK_AFTER_EXCEPTION: "the bot's code failed"}


class Deserializer:
    """The Play stream's request deserializer: a ``BotMessage``, or :class:`Undecodable` for
    bytes that are not one; counts the bytes read."""

    __slots__ = ("_stats",)

    def __init__(self, stats: TransportStats) -> None:
        self._stats = stats

    def __call__(self, data: bytes) -> pb.BotMessage | Undecodable:
        self._stats.bytes_in += len(data)
        try:
            return pb.BotMessage.FromString(data)
        except Exception:  # DecodeError: the reader ends the stream INVALID_ARGUMENT
            return Undecodable(len(data))


class ReplyInbox:
    """The replies read since trio last took them, for :meth:`Lobby.submit`."""

    __slots__ = ("_guest", "_lobby", "_replies")

    def __init__(self, guest: TrioGuest, lobby: Lobby) -> None:
        self._guest = guest
        self._lobby = lobby
        self._replies: list[tuple[str, m.Reply]] = []

    def take(self, conn: Connection, action_reply: pb.ActionReply) -> None:
        """A reply read from ``conn``'s stream, converted and handed to trio
        (:meth:`_hand_over`); the lobby refuses, and counts, a malformed decision id
        (`arena.match.lobby.MAX_DECISION_ID_CHARS`)."""
        decision_id = action_reply.decision_id
        now = time.perf_counter()
        reply = convert.reply(action_reply, now, conn.wire_seconds(decision_id, now))
        fallback = action_reply.fallback
        if fallback != pb.FALLBACK_UNSPECIFIED:
            self._fell_back(conn.bot_id, action_reply)
        self._hand_over(conn.bot_id, reply)

    def _fell_back(self, bot_id: str, action_reply: pb.ActionReply) -> None:
        """A reply the SDK made by its check/fold fallback: logged, and a fault reported with
        the hand and seat of its decision and what the SDK said went wrong (bounded)."""
        decision_id = action_reply.decision_id
        why = FALLBACK_WHY.get(action_reply.fallback, "unknown reason")
        detail = bounded_detail(action_reply.fallback_detail)
        last_line = detail.strip().rpartition("\n")[2]
        log.info("bot %s: decision %s answered by its SDK's check/fold fallback (%s)%s",
                 bot_id, decision_id, why, f": {last_line}" if last_line else "")
        lobby = self._lobby
        if not lobby.fault_observers:
            return
        prompt = lobby.open_prompt(bot_id, decision_id)
        lobby.report(BotFault(
            bot_id=bot_id, decision_id=decision_id,
            kind=FaultKind.EXCEPTION if action_reply.fallback == pb.FALLBACK_AFTER_EXCEPTION
            else FaultKind.FALLBACK,
            match_id=prompt.match_id if prompt is not None else "",
            hand_number=prompt.hand_number if prompt is not None else 0,
            seat=prompt.seat if prompt is not None else action_reply.seat,
            street=prompt.street if prompt is not None else "",
            detail=detail or why))

    def _hand_over(self, bot_id: str, reply: m.Reply) -> None:
        """Straight into trio: at once when trio waits on this loop (the table's step and the
        next prompt's write follow in this callback), else the first reply since trio last ran
        wakes it, and that one call hands over every reply read since."""
        replies = self._replies
        replies.append((bot_id, reply))
        if len(replies) == 1 and not self._guest.call_here(self._submit_all):
            replies.clear()  # trio has ended: no table takes replies any more

    def _submit_all(self) -> None:
        replies, self._replies = self._replies, []
        lobby = self._lobby
        for bot_id, reply in replies:  # inside trio, or on the loop's thread between its ticks
            lobby.submit(bot_id, reply)
