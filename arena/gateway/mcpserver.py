"""`arena mcp`: an MCP server (stdio, the official MCP SDK) through which an agent plays one seat.

The server holds one ``Dealer.Play`` stream with the seat's token, like any bot, and offers
three tools: ``wait_for_decision`` (the next decision as the text view), ``act`` (a reply of
the text grammar) and ``hand_history`` (the hands this seat has seen). What the dealer refuses
is said in the tool's answer; nothing is decided for the agent except by the dealer's own clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field

import grpc
from mcp.server.mcpserver import MCPServer

from arena.gateway.dealerlink import dealer_channel
from arena.gateway.handlog import HandBook
from arena.gateway.replytext import ReplyRefused, parse_reply
from arena.gateway.textview import action_text, render
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc as pb_grpc

log = logging.getLogger("arena.mcp")
MAX_WAIT_SECONDS = 600.0
MAX_OPEN = 64  # open decisions remembered (a seat at this many tables at once)
# Stream ends after which the next tool call connects again (the dealer re-sends an open
# decision then); after any other end (OK: the matches are over; a refused token) it says why.
RECONNECT_AFTER = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
                             grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN,
                             grpc.StatusCode.DEADLINE_EXCEEDED})
ACT_WAIT_SECONDS = 30.0

INSTRUCTIONS = """\
You play one seat of a poker match at an arena dealer. Loop: call wait_for_decision; read the
table; call act with its decision_id and one reply of the grammar (fold, check, call, bring-in,
complete, bet N, raise N; N is the total of this betting round); repeat until wait_for_decision
says the match is over. hand_history shows the hands you have seen. The decision's clock runs
while you think: past it and the match time bank the dealer checks or folds for you."""


@dataclass(slots=True)
class SeatLink:
    """The seat's stream and what it has seen: the open decision, answers, hands, the end."""

    server: str
    token: str
    name: str
    root_certificates: bytes | None = None
    book: HandBook = field(default_factory=HandBook)
    # Open decisions, oldest first (one per table when the seat plays several at once), with
    # when each arrived (monotonic).
    open: dict[str, tuple[pb.DecisionRequest, float]] = field(default_factory=dict)
    answers: dict[str, asyncio.Future[str]] = field(default_factory=dict)
    ended: str = ""
    matches_ended: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # closed decisions, the stream's end: said once
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    call: object = None
    task: asyncio.Task[None] | None = None
    channel: grpc.aio.Channel | None = None
    code: grpc.StatusCode | None = None  # how the last stream ended
    connects: int = 0

    async def start(self) -> None:
        """Open the stream, or open it again after an end a reconnect may cure."""
        if self.task is not None and not (self.task.done() and self.code in RECONNECT_AFTER):
            return
        if self.channel is not None:
            await self.channel.close()
        self.ended, self.code = "", None
        self.open.clear()
        self.connects += 1
        self.channel = dealer_channel(self.server, self.root_certificates)
        call = pb_grpc.DealerStub(self.channel).Play(metadata=(("authorization",
                                                               f"Bearer {self.token}"),))
        self.call = call
        self.task = asyncio.ensure_future(self._read(call))
        with contextlib.suppress(grpc.aio.AioRpcError, grpc.aio.UsageError,
                                 asyncio.InvalidStateError):  # the reader records how it ended
            await call.write(pb.BotMessage(hello=pb.Hello(
                bot_name=self.name, bot_version="arena-mcp", protocol_version=1)))

    async def _read(self, call: grpc.aio.StreamStreamCall[pb.BotMessage, pb.DealerMessage]
                    ) -> None:
        try:
            while True:
                message = await call.read()
                if message is grpc.aio.EOF:
                    code, details = await call.code(), await call.details()
                    break
                assert isinstance(message, pb.DealerMessage)
                self._take(message)
        except grpc.aio.AioRpcError as exc:
            code, details = exc.code(), exc.details() or ""
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # this reader is being stopped
            code, details = grpc.StatusCode.CANCELLED, "the stream was cancelled"  # not by us
        self.code = code
        self.open.clear()  # not answerable on this stream; a new one gets them again if still open
        self.ended = f"the dealer ended the stream: {code.name}" + (f" ({details})" if details else "")
        if code in RECONNECT_AFTER:
            self.ended += "; the next call connects again"
        for future in self.answers.values():
            if not future.done():
                future.set_result(self.ended)
        self.changed.set()

    def _take(self, message: pb.DealerMessage) -> None:
        kind = message.WhichOneof("payload")
        if kind == "decision_request":
            request = message.decision_request
            self.open[request.decision_id] = (request, time.monotonic())
            while len(self.open) > MAX_OPEN:
                del self.open[next(iter(self.open))]
        elif kind == "action_rejected":
            r = message.action_rejected
            self._answer(r.decision_id, f"refused ({pb.RejectCode.Name(r.code)}): {r.message}"
                         + (f"; you may reply again ({r.time_left_seconds:.1f} s left)"
                            if r.retry_allowed else ""))
            if not r.retry_allowed:
                self.open.pop(r.decision_id, None)
        elif kind == "decision_closed":
            closed = message.decision_closed
            self.open.pop(closed.decision_id, None)
            why = ("your time ran out" if closed.reason == pb.DECISION_CLOSE_REASON_TIMEOUT
                   else "the hand stopped")
            chose = pb.ActionKind.Name(closed.action).removeprefix("ACTION_KIND_").lower()
            did = f"; the dealer chose {chose}" if closed.action else ""
            self._answer(closed.decision_id, f"closed: {why}{did}")
            self.notes.append(f"decision {closed.decision_id} of hand {closed.hand_number} closed "
                              f"without your reply: {why}{did}")
        elif kind == "stream_ending":
            self.notes.append(f"the dealer is ending the stream: {message.stream_ending.message}")
        elif kind == "event":
            event = message.event
            self.book.add(event)
            which = event.WhichOneof("payload")
            if which == "action_taken" and event.action_taken.decision_id:
                taken = event.action_taken
                self.open.pop(taken.decision_id, None)
                self._answer(taken.decision_id, "done: " + action_text(taken.action))
            elif which == "match_ended":
                ended = event.match_ended
                lines = ", ".join(f"{r.name} {r.net_chips:+d} chips" for r in ended.results)
                self.matches_ended.append(f"match {event.match_id} ended after "
                                          f"{ended.hands_played} hands: {lines}")
        self.changed.set()

    def _answer(self, decision_id: str, text: str) -> None:
        future = self.answers.pop(decision_id, None)
        if future is not None and not future.done():
            future.set_result(text)

    def _said(self) -> str:
        """The notes not yet told (closed decisions, the stream's end), told once."""
        said = "".join(f"{note}\n" for note in self.notes)
        self.notes.clear()
        return said

    async def wait_for_decision(self, timeout_seconds: float) -> str:
        await self.start()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0.0, min(MAX_WAIT_SECONDS, timeout_seconds))
        while True:
            if self.open:
                request, arrived = next(iter(self.open.values()))  # the oldest: least time left
                more = len(self.open) - 1
                return self._said() + render(clock_now(request, time.monotonic() - arrived)) + (
                    f"({more} more decision(s) of other tables waiting.)\n" if more else "") + (
                    "Answer with act(decision_id, reply).\n")
            if self.ended and self.code in RECONNECT_AFTER:
                if loop.time() >= deadline:
                    return f"{self.ended}. No decision yet; call wait_for_decision again.\n"
                await asyncio.sleep(min(1.0, deadline - loop.time()))
                await self.start()  # the dealer sends the open decision again, if any
                continue
            if self.ended:
                lines = [*self.matches_ended, self.ended, "No more decisions."]
                return self._said() + "\n".join(lines) + "\n"
            self.changed.clear()
            left = deadline - loop.time()
            if left <= 0:
                done = "".join(f"{m}\n" for m in self.matches_ended)
                return done + "No decision yet; call wait_for_decision again.\n"
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def act(self, decision_id: str, reply: str) -> str:
        await self.start()
        entry = self.open.get(decision_id)
        request = entry[0] if entry is not None else None
        if request is None:
            return (f"refused: decision {decision_id[:80]!r} is not open (answered, timed out, or "
                    "unknown); call wait_for_decision\n")
        try:
            action = parse_reply(reply, request)
        except ReplyRefused as exc:
            return f"refused: {exc}\n"
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.answers[decision_id] = answer
        assert isinstance(self.call, grpc.aio.StreamStreamCall)
        try:
            await self.call.write(pb.BotMessage(action_reply=pb.ActionReply(
                decision_id=decision_id, seat=request.your_seat, action=action)))
        except (grpc.aio.AioRpcError, grpc.aio.UsageError, asyncio.InvalidStateError):
            self.answers.pop(decision_id, None)
            return ("not sent: the connection to the dealer was lost; call wait_for_decision "
                    "(it connects again, and the dealer re-sends the decision if still open)\n")
        try:
            return await asyncio.wait_for(answer, ACT_WAIT_SECONDS) + "\n"
        except TimeoutError:
            return "sent; the dealer has not confirmed it yet\n"

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        if self.channel is not None:
            await self.channel.close()


def clock_now(request: pb.DecisionRequest, elapsed_seconds: float) -> pb.DecisionRequest:
    """``request`` with its clock as it stands ``elapsed_seconds`` after it arrived: the
    decision's own time spent first, then the bank (an agent may read it long after)."""
    out = pb.DecisionRequest()
    out.CopyFrom(request)
    own = request.decision_time_left_seconds
    out.decision_time_left_seconds = max(0.0, own - elapsed_seconds)
    out.time_bank_left_seconds = max(0.0, request.time_bank_left_seconds
                                     - max(0.0, elapsed_seconds - own))
    return out


def build_server(link: SeatLink) -> MCPServer:
    server: MCPServer = MCPServer("arena", instructions=INSTRUCTIONS)

    @server.tool(description="Wait (up to timeout_seconds, at most 600) for your next decision and "
                             "return the table as text with the legal replies.")
    async def wait_for_decision(timeout_seconds: float = 60.0) -> str:
        return await link.wait_for_decision(timeout_seconds)

    @server.tool(description="Answer the open decision: decision_id as shown, reply one of fold, "
                             "check, call, bring-in, complete, bet N, raise N (N = the total of "
                             "this betting round). Returns what the dealer did or why it refused.")
    async def act(decision_id: str, reply: str) -> str:
        return await link.act(decision_id, reply)

    @server.tool(description="The hands this seat has seen: which='current' (the newest), 'all' "
                             "(one line each) or a hand number.")
    async def hand_history(which: str = "current") -> str:
        await link.start()
        return link.book.text(which.strip().lower()[:20])

    return server


def run_mcp(server: str, token: str, *, name: str, root_certificates: bytes | None = None) -> int:
    """Serve MCP on stdin/stdout until the client closes it."""
    link = SeatLink(server, token, name, root_certificates=root_certificates)
    mcp = build_server(link)

    async def main() -> None:
        try:
            await mcp.run_stdio_async()
        finally:
            await link.close()

    asyncio.run(main())
    return 0
