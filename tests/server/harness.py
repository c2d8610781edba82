"""Test helpers: configs, an in-process dealer on an ephemeral port, and a raw protocol bot."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import grpc

from arena.server.app import DealerServer
from arena.server.config import ServerConfig, config_from_mapping
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc as pb_grpc


def token_for(name: str) -> str:
    return f"token-{name}-0123456789"


def make_config(tmp_path: Path, seats: Iterable[str], *, hands: int, seed: int = 1,
                rules: Mapping[str, Any] | None = None, limits: Mapping[str, Any] | None = None,
                tables: list[dict[str, Any]] | None = None,
                start_timeout_seconds: float = 20.0) -> ServerConfig:
    data: dict[str, Any] = {
        "listen": "127.0.0.1:0", "log_dir": str(tmp_path / "logs"), "hands": hands, "seed": seed,
        "start_timeout_seconds": start_timeout_seconds, "rules": dict(rules or {}),
        "limits": dict(limits or {}),
        "seats": [{"name": n, "token": token_for(n)} for n in seats],
    }
    if tables is not None:
        data["tables"] = tables
    return config_from_mapping(data)


@contextlib.asynccontextmanager
async def running(config: ServerConfig) -> AsyncIterator[tuple[DealerServer, str]]:
    """A started dealer and its address; stopped (if still running) on exit."""
    server = DealerServer(config)
    port = await server.start()
    try:
        yield server, f"127.0.0.1:{port}"
    finally:
        server.stop()
        await server.run_until_done()


def unbatch(message: pb.DealerMessage) -> list[pb.DealerMessage]:
    if message.WhichOneof("payload") == "batch":
        return list(message.batch.messages)
    return [message]


class RawBot:
    """Speaks the wire protocol by hand, to test what well-behaved SDK bots never do."""

    def __init__(self, address: str, token: str | None, *, name: str = "raw",
                 batches: bool = False, hello: bool = True) -> None:
        self.address = address
        self.token = token
        self.name = name
        self.batches = batches
        self.send_hello = hello
        self.received: list[pb.DealerMessage] = []
        self._queue: asyncio.Queue[pb.DealerMessage | None] = asyncio.Queue()
        self._pump_task: asyncio.Task[None] | None = None
        self._ended = False
        self.channel: grpc.aio.Channel | None = None
        self.call: Any = None
        self.status: grpc.StatusCode | None = None
        self.details = ""

    async def connect(self) -> RawBot:
        self.channel = grpc.aio.insecure_channel(self.address)
        stub = pb_grpc.DealerStub(self.channel)
        metadata = (("authorization", f"Bearer {self.token}"),) if self.token else ()
        self.call = stub.Play(metadata=metadata)
        self._pump_task = asyncio.ensure_future(self._pump())
        if self.send_hello:
            # Refused before the hello went out (e.g. a bad token): the pump records why.
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                await self.call.write(pb.BotMessage(hello=pb.Hello(
                    bot_name=self.name, protocol_version=1, accept_batches=self.batches)))
        return self

    async def _pump(self) -> None:
        # Reads run in their own task: cancelling a pending read would cancel the whole call.
        try:
            while True:
                envelope = await self.call.read()
                if envelope is grpc.aio.EOF:
                    self.status = await self.call.code()
                    self.details = await self.call.details()
                    break
                for message in unbatch(envelope):
                    self._queue.put_nowait(message)
        except grpc.aio.AioRpcError as exc:
            self.status, self.details = exc.code(), exc.details() or ""
        except asyncio.CancelledError:
            self.status = grpc.StatusCode.CANCELLED
        finally:
            self._queue.put_nowait(None)

    async def close(self) -> None:
        if self.call is not None:
            self.call.cancel()
        if self._pump_task is not None:
            await asyncio.gather(self._pump_task, return_exceptions=True)
        if self.channel is not None:
            await self.channel.close()

    async def recv(self, timeout: float = 10.0) -> pb.DealerMessage | None:
        """The next dealer message, or None when the stream has ended (status recorded)."""
        if self._ended:
            return None
        try:
            message = await asyncio.wait_for(self._queue.get(), timeout)
        except TimeoutError:
            raise AssertionError(f"{self.name}: no message within {timeout:.1f} s") from None
        if message is None:
            self._ended = True
            return None
        self.received.append(message)
        return message

    async def expect(self, predicate: Callable[[pb.DealerMessage], bool],
                     timeout: float = 10.0) -> pb.DealerMessage:
        """Skip messages until one matches; fail if the stream ends first."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            message = await self.recv(max(0.01, deadline - loop.time()))
            if message is None:
                raise AssertionError(f"{self.name}: stream ended ({self.status} {self.details})")
            if predicate(message):
                return message

    async def request(self, timeout: float = 10.0) -> pb.DecisionRequest:
        message = await self.expect(lambda m: m.WhichOneof("payload") == "decision_request",
                                    timeout)
        return message.decision_request

    async def reject(self, timeout: float = 10.0) -> pb.ActionRejected:
        message = await self.expect(lambda m: m.WhichOneof("payload") == "action_rejected",
                                    timeout)
        return message.action_rejected

    async def send(self, message: pb.BotMessage) -> None:
        await self.call.write(message)

    async def reply(self, decision_id: str, seat: int, kind: int | None,
                    raise_to_chips: int = 0) -> None:
        reply = pb.ActionReply(decision_id=decision_id, seat=seat)
        if kind is not None:
            reply.action.CopyFrom(pb.Action(kind=kind, raise_to_chips=raise_to_chips))
        await self.send(pb.BotMessage(action_reply=reply))

    async def drain(self, timeout: float = 30.0) -> None:
        """Read until the stream ends."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while await self.recv(max(0.01, deadline - loop.time())) is not None:
            pass


def events(messages: Iterable[pb.DealerMessage], kind: str) -> list[Any]:
    """The payloads of one event kind, in order."""
    return [getattr(m.event, kind) for m in messages
            if m.WhichOneof("payload") == "event" and m.event.WhichOneof("payload") == kind]
