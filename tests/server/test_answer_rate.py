"""The inbound message rate bounds what a bot sends unasked, never its answers: each decision
request written to a stream lets one more message in (arena.server.connection), so a stream
holding many seats at fast tables answers as fast as the dealer asks, while a flood is cut as
before. Driven on a connection directly, at any speed the machine runs it."""

from __future__ import annotations

import asyncio
import time

import pytest

from arena.match import messages as m
from arena.server import convert, wire
from arena.server.config import Limits
from arena.server.connection import Connection, Item
from arena.server.errors import Flooding, StreamEnded
from arena.server.stats import TransportStats
from arena.v1 import arena_pb2 as pb
from tests.server.test_wire import _hands

pytestmark = pytest.mark.timeout(60)

SEATS = 8  # one bot process holding eight seats on one stream, as in bench.league


class AnsweringContext:
    """A servicer context whose writes complete at once and whose bot answers every decision
    request it is written at once (plus ``extra`` unasked pings after each answer)."""

    def __init__(self, *, answer: bool = True, extra: int = 0) -> None:
        self.answer = answer
        self.extra = extra
        self.inbox: asyncio.Queue[pb.BotMessage] = asyncio.Queue()

    async def write(self, data: bytes) -> None:
        message = pb.DealerMessage.FromString(data)
        inner = (list(message.batch.messages) if message.WhichOneof("payload") == "batch"
                 else [message])
        for one in inner:
            if one.HasField("decision_request") and self.answer:
                request = one.decision_request
                self.inbox.put_nowait(pb.BotMessage(action_reply=pb.ActionReply(
                    decision_id=request.decision_id, seat=request.your_seat,
                    action=pb.Action(kind=pb.ACTION_KIND_CALL))))
                for nonce in range(self.extra):
                    self.inbox.put_nowait(pb.BotMessage(ping=pb.Ping(nonce=nonce)))

    async def read(self) -> object:
        return await self.inbox.get()

    def done(self) -> bool:
        return False

    def cancelled(self) -> bool:
        return False


def _prompts(count: int) -> list[m.Prompt]:
    found = [p for prompts, _ in _hands("FT", 20, seed=3) for p in prompts]
    return [found[k % len(found)] for k in range(count)]


def _item(prompt: m.Prompt, relayed: bool) -> Item:
    """A table's prompt, or the decision request a relay passes down from another worker."""
    if relayed:
        return pb.DealerMessage(decision_request=convert.decision_request(prompt))
    return prompt


async def _play(limits: Limits, rounds: int, context: AnsweringContext, *,
                relayed: bool = False) -> tuple[int, StreamEnded | None]:
    """A dealer as fast as the machine: each round asks all ``SEATS`` seats at once and starts
    the next round as soon as every one has answered. Returns the messages read before the
    stream ended, and how it ended."""
    conn = Connection(bot_id="b", session_id="s", batches=True, limits=limits,
                      encoder=wire.Encoder(), stats=TransportStats())
    prompts = iter(_prompts(rounds * SEATS))
    read = 0
    answered = 0
    done = asyncio.get_running_loop().create_future()

    def ask() -> None:
        for _ in range(SEATS):
            conn.deliver(_item(next(prompts), relayed))

    def on_message(_: Connection, message: pb.BotMessage) -> None:
        nonlocal read, answered
        read += 1
        if message.HasField("action_reply"):
            answered += 1
            if answered == rounds * SEATS:
                if not done.done():
                    done.set_result(None)
            elif answered % SEATS == 0:
                ask()

    serving = asyncio.ensure_future(conn.serve(context, on_message))  # type: ignore[arg-type]
    ask()
    await asyncio.wait([serving, done], return_when=asyncio.FIRST_COMPLETED)
    conn.finish(None)
    return read, await serving


@pytest.mark.parametrize("relayed", [False, True], ids=["tables", "relayed"])
@pytest.mark.parametrize("limits", [Limits(), Limits(messages_per_second=1.0, message_burst=20)],
                         ids=["defaults", "tiny-rate"])
def test_a_stream_answering_many_seats_faster_than_the_rate_is_not_cut(
        limits: Limits, relayed: bool) -> None:
    """Before: the answers drew on the bucket like a flood, so 8 seats answering a dealer that
    asks faster than 1,000 decisions/s (bench.league's bots answer 740-870/s, and a dealer pinned
    to a core cut two honest calling bots) were cut after the burst: here after 200 answers
    (20 with the tiny rate). The tiny rate makes that so however slowly the machine runs."""
    rounds = 1000
    read, ended = asyncio.run(_play(limits, rounds, AnsweringContext(), relayed=relayed))
    assert ended is None, ended
    assert read == rounds * SEATS


def test_unasked_messages_beside_the_answers_are_still_cut_at_the_rate() -> None:
    """A bot that answers every request and adds a ping to each answer: the answers are free,
    the pings are not, so it is cut once they exceed the burst and the rate."""
    limits = Limits(messages_per_second=1.0, message_burst=20)
    started = time.monotonic()
    read, ended = asyncio.run(_play(limits, 1000, AnsweringContext(extra=1)))
    elapsed = time.monotonic() - started
    assert isinstance(ended, Flooding), ended
    assert "messages" in ended.message
    pings = read // 2  # each answer is followed by its ping
    assert pings <= limits.message_burst + limits.messages_per_second * elapsed + 1


def test_requests_left_unanswered_buy_no_larger_flood() -> None:
    """Requests refill the bucket at most to its burst: a bot sent 500 requests that it never
    answered, then flooding pings, gets no more through than one sent none."""
    limits = Limits(messages_per_second=1.0, message_burst=20)

    async def main() -> tuple[int, StreamEnded | None, float]:
        context = AnsweringContext(answer=False)
        conn = Connection(bot_id="b", session_id="s", batches=True, limits=limits,
                          encoder=wire.Encoder(), stats=TransportStats())
        read = 0

        def on_message(_: Connection, message: pb.BotMessage) -> None:
            nonlocal read
            read += 1

        started = time.monotonic()
        serving = asyncio.ensure_future(conn.serve(context, on_message))  # type: ignore[arg-type]
        for prompt in _prompts(500):
            conn.deliver(prompt)
            await asyncio.sleep(0)  # one write each
        for nonce in range(200):
            context.inbox.put_nowait(pb.BotMessage(ping=pb.Ping(nonce=nonce)))
        ended = await asyncio.wait_for(serving, 30)
        return read, ended, time.monotonic() - started

    read, ended, elapsed = asyncio.run(main())
    assert isinstance(ended, Flooding), ended
    assert read <= limits.message_burst + limits.messages_per_second * elapsed + 1

