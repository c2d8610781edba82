"""One agent connection of the gateway: a WebSocket of JSON frames relayed to one ``Dealer.Play``.

Agent -> dealer: each frame is bounded (bytes, rate), parsed as a ``BotMessage`` in the proto3
JSON mapping (:mod:`arena.gateway.protojson`) or as the gateway's ``text_reply`` (the reply
grammar of :mod:`arena.gateway.replytext`), and written to the stream unchanged; a frame that is
neither gets an ``error`` frame and changes nothing. Dealer -> agent: every ``DealerMessage`` as
one JSON frame, in order; in text mode each decision request also carries its text view.

When the stream ends the agent gets a ``stream_ended`` frame with the gRPC status and the socket
closes (code 1000 if OK, else 4000 + the status number); when the socket closes the stream is
cancelled and the dealer sees the seat disconnect (absent, as for any bot).
"""

from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from arena.gateway.limits import GatewayLimits
from arena.gateway.protojson import JsonRefused, dealer_message_dict, load_object, parse_bot_message
from arena.gateway.replytext import ReplyRefused, parse_reply
from arena.gateway.textview import render
from arena.server.guard import TokenBucket
from arena.v1 import arena_pb2 as pb

log = logging.getLogger("arena.gateway")

SendText = Callable[[str], Awaitable[None]]
Observe = Callable[[str, float], None]  # (metric name, seconds)


def frame(kind: str, **fields: Any) -> str:
    return json.dumps({kind: fields}, separators=(",", ":"))


def error_frame(code: str, message: str, *, decision_id: str = "") -> str:
    return frame("error", code=code, message=message, decision_id=decision_id)


@dataclass(slots=True)
class _Open:
    request: pb.DecisionRequest
    received_at: float  # monotonic: when the gateway read it from the dealer
    sent_at: float = 0.0  # ... and when it had written it to the agent


@dataclass(slots=True, kw_only=True)
class AgentSession:
    """The state of one connection: its open decisions and its flood bucket."""

    call: Any  # the grpc.aio stream-stream call of Dealer.Play
    send_text: SendText
    limits: GatewayLimits
    text_mode: bool = False
    observe: Observe = lambda _name, _seconds: None
    clock: Callable[[], float] = time.monotonic
    on_welcome: Callable[[], None] = lambda: None
    bot_name: str = ""  # as the dealer's welcome names it
    open: OrderedDict[str, _Open] = field(default_factory=OrderedDict)
    bucket: TokenBucket | None = None

    # ------------------------------------------------------------------ dealer -> agent
    async def relay_dealer(self) -> tuple[str, str]:
        """Forward the dealer's messages until the stream ends; its (status name, details)."""
        try:
            while True:
                message = await self.call.read()
                if message is grpc.aio.EOF:
                    break
                received = self.clock()
                data = dealer_message_dict(message)
                self._note(message, data, received)
                await self.send_text(json.dumps(data, separators=(",", ":")))
                self._sent(message, self.clock())
            code = await self.call.code()
            details = await self.call.details()
        except grpc.aio.AioRpcError as exc:
            code, details = exc.code(), exc.details() or ""
        return code.name, details

    def _note(self, message: pb.DealerMessage, data: dict[str, Any], now: float) -> None:
        """Remember requests, forget closed decisions; add text views in text mode."""
        pairs = [(message, data)]
        if message.WhichOneof("payload") == "batch":
            pairs = list(zip(message.batch.messages, data["batch"]["messages"], strict=True))
        for inner, inner_data in pairs:
            kind = inner.WhichOneof("payload")
            if kind == "welcome":
                self.bot_name = inner.welcome.bot_name
                self.on_welcome()
            elif kind == "decision_request":
                request = inner.decision_request
                self.open[request.decision_id] = _Open(request, now)
                while len(self.open) > self.limits.max_open_decisions:
                    self.open.popitem(last=False)
                if self.text_mode:
                    inner_data["text"] = render(request)
            elif kind == "event" and inner.event.WhichOneof("payload") == "action_taken":
                self.open.pop(inner.event.action_taken.decision_id, None)
            elif kind == "action_rejected" and not inner.action_rejected.retry_allowed:
                self.open.pop(inner.action_rejected.decision_id, None)
            elif kind == "decision_closed":  # timed out: the dealer acted for the seat
                self.open.pop(inner.decision_closed.decision_id, None)

    def _sent(self, message: pb.DealerMessage, now: float) -> None:
        inner = (list(message.batch.messages) if message.WhichOneof("payload") == "batch"
                 else [message])
        for m in inner:
            if m.WhichOneof("payload") == "decision_request":
                entry = self.open.get(m.decision_request.decision_id)
                if entry is not None and not entry.sent_at:
                    entry.sent_at = now
                    self.observe("relay_to_agent", now - entry.received_at)

    # ------------------------------------------------------------------ agent -> dealer
    async def take_frame(self, text: str | bytes) -> None:
        """One frame from the agent: written to the stream, or answered with an ``error``."""
        now = self.clock()
        if self.bucket is None:
            self.bucket = TokenBucket(self.limits.messages_per_second, self.limits.message_burst)
        if not self.bucket.take():
            raise Flooded(f"more than {self.limits.message_burst} frames at once or "
                          f"{self.limits.messages_per_second:g} a second")
        size = len(text.encode() if isinstance(text, str) else text)
        if size > self.limits.max_message_bytes:
            await self.send_text(error_frame(
                "RESOURCE_EXHAUSTED", f"frame of {size} bytes refused: at most "
                f"{self.limits.max_message_bytes}; nothing was sent to the dealer"))
            return
        try:
            message = self._parse(load_object(text))
        except JsonRefused as exc:
            await self.send_text(error_frame(exc.code, exc.message + "; nothing was sent to the "
                                             "dealer", decision_id=_decision_of(text)))
            return
        if message.WhichOneof("payload") == "action_reply":
            self._think(message.action_reply, now)
        await self.call.write(message)

    def _parse(self, data: dict[str, Any]) -> pb.BotMessage:
        if "text_reply" not in data:
            return parse_bot_message(data)
        body = data["text_reply"]
        if len(data) != 1 or not isinstance(body, dict) or set(body) - {"decision_id", "text",
                                                                         "think_seconds"}:
            raise JsonRefused("INVALID_ARGUMENT", "a text reply is {\"text_reply\": "
                              "{\"decision_id\": ..., \"text\": ...}} and nothing else")
        decision_id, text = body.get("decision_id"), body.get("text")
        if not isinstance(decision_id, str) or not isinstance(text, str):
            raise JsonRefused("INVALID_ARGUMENT", "text_reply needs string decision_id and text")
        entry = self.open.get(decision_id)
        if entry is None:
            raise JsonRefused("ABORTED", f"decision {decision_id[:80]!r} is not open here "
                              "(already answered, timed out or unknown)")
        try:
            action = parse_reply(text, entry.request)
        except ReplyRefused as exc:
            raise JsonRefused("INVALID_ARGUMENT", str(exc)) from None
        think = body.get("think_seconds", 0.0)
        reply = pb.ActionReply(decision_id=decision_id, seat=entry.request.your_seat,
                               action=action)
        if isinstance(think, int | float) and not isinstance(think, bool) and 0 <= think < 1e9:
            reply.think_seconds = float(think)
        return pb.BotMessage(action_reply=reply)

    def _think(self, reply: pb.ActionReply, now: float) -> None:
        """The agent's think time as the gateway saw it (request written to reply read), kept
        apart from the relay time; given to the dealer when the agent reports none."""
        entry = self.open.get(reply.decision_id)
        if entry is None or not entry.sent_at:
            return
        seconds = max(0.0, now - entry.sent_at)
        self.observe("agent_think", seconds)
        if reply.think_seconds == 0:
            reply.think_seconds = seconds


class Flooded(Exception):
    """The agent sent frames faster than its bucket allows: the connection is closed."""


def _decision_of(text: str | bytes) -> str:
    """The decision id a refused frame names, if it can be read at all (for the error frame)."""
    try:
        data = json.loads(text)
        value = data.get("action_reply", data.get("text_reply", {})).get("decision_id", "")
        return value[:80] if isinstance(value, str) else ""
    except (ValueError, AttributeError, RecursionError):
        return ""
