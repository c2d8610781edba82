"""Bots across workers: a bot connects to ONE worker, which relays the seats it holds on others.

For each directly connected bot that sits at tables on other workers (the worker learns where
from the work queue), the relay opens a Play stream to each of those workers as the bot (its own
token, so it receives only the bot's own seats), marked ``arena-relay`` and naming the tables
(``arena-tables``, checked when the stream opens: PERMISSION_DENIED where the bot has no seat;
the stream then carries all of the bot's seats there, tables added later too). Everything the other
worker sends is passed to the bot's stream; the bot's answers to those decisions are passed back.
Bot SDKs see one stream and need no change. With `PeerCredentials` the hop between workers is
mutual TLS to the other worker's peer port (`arena.server.peer_tls`); without, it is plaintext.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence

import grpc

from arena.server.connection import Connection
from arena.server.peer_tls import PeerCredentials
from arena.server.service import PROTOCOL_VERSION, RELAY_KEY, TABLES_KEY
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc as pb_grpc

log = logging.getLogger("arena.relay")
LINGER_SECONDS = 30.0  # a relay no table needs is kept this long for the bot's next table there

# bot -> worker address -> tables of that bot there
RemoteTables = Mapping[str, Mapping[str, Sequence[str]]]


class Upstream:
    """One relayed stream: a bot's seats on one other worker."""

    def __init__(self, relay: Relay, bot_id: str, token: str, address: str, tables: Sequence[str],
                 conn: Connection) -> None:
        self.relay, self.bot_id, self.token, self.address = relay, bot_id, token, address
        self.tables = tuple(tables)
        self.conn = conn
        self._outgoing: asyncio.Queue[pb.BotMessage] = asyncio.Queue(maxsize=1024)
        self.task = asyncio.ensure_future(self._run())

    def send(self, message: pb.BotMessage) -> None:
        with contextlib.suppress(asyncio.QueueFull):  # the other worker stopped reading: it times out
            self._outgoing.put_nowait(message)

    def close(self) -> None:
        self.task.cancel()

    @property
    def done(self) -> bool:
        return self.task.done()

    async def _run(self) -> None:
        metadata = (("authorization", f"Bearer {self.token}"), (RELAY_KEY, "1"),
                    (TABLES_KEY, ",".join(self.tables)))
        try:
            async with self.relay.channel(self.address) as channel:
                call = pb_grpc.DealerStub(channel).Play(metadata=metadata)
                await call.write(pb.BotMessage(hello=pb.Hello(
                    bot_name=self.bot_id, bot_version="relay", protocol_version=PROTOCOL_VERSION,
                    accept_batches=True, subscription=self.conn.subscription)))
                writer = asyncio.ensure_future(self._write(call))
                try:
                    async for envelope in call:
                        messages = (envelope.batch.messages if envelope.WhichOneof("payload") == "batch"
                                    else [envelope])
                        for message in messages:
                            self._pass_down(message)
                finally:
                    writer.cancel()
        except grpc.aio.AioRpcError as exc:
            log.info("relay of %s to %s ended: %s %s", self.bot_id, self.address, exc.code().name,
                     exc.details())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("relay of %s to %s failed", self.bot_id, self.address)

    def _pass_down(self, message: pb.DealerMessage) -> None:
        kind = message.WhichOneof("payload")
        if kind in ("welcome", "pong"):
            return  # the bot has its own welcome from the worker it connected to
        if kind == "decision_request":
            self.relay.route(self.bot_id, message.decision_request.decision_id, self)
        self.conn.deliver(message)

    async def _write(self, call: grpc.aio.StreamStreamCall[pb.BotMessage, pb.DealerMessage]) -> None:
        while True:
            message = await self._outgoing.get()
            await call.write(message)


class Relay:
    """A worker's relay, told by its `DealerService` of the bots that connect to it directly: it
    carries their seats on other workers, one upstream per (bot, other worker)."""

    def __init__(self, *, token_of: Callable[[str], str | None], own_address: str,
                 peer: PeerCredentials | None = None) -> None:
        self._token_of = token_of
        self.own_address = own_address
        self._peer = peer
        self._direct: dict[str, Connection] = {}
        self._upstreams: dict[tuple[str, str], Upstream] = {}
        self._routes: dict[tuple[str, str], Upstream] = {}
        self._needed_at: dict[tuple[str, str], float] = {}  # when the queue last said so

    def channel(self, address: str) -> grpc.aio.Channel:
        """A channel to another worker: mutual TLS when the workers have peer credentials."""
        options: list[tuple[str, str | int]] = [("grpc.use_local_subchannel_pool", 1)]
        if self._peer is None:
            return grpc.aio.insecure_channel(address, options=options)
        return grpc.aio.secure_channel(address, self._peer.channel(),
                                       options=[*options, *self._peer.channel_options()])

    # what the service tells it
    def connected(self, bot_id: str, conn: Connection) -> None:
        self._direct[bot_id] = conn
        for key in [k for k in self._upstreams if k[0] == bot_id]:  # streams to the old connection
            self._upstreams.pop(key).close()

    def disconnected(self, bot_id: str, conn: Connection) -> None:
        if self._direct.get(bot_id) is conn:
            del self._direct[bot_id]
            for key in [k for k in self._upstreams if k[0] == bot_id]:
                self._upstreams.pop(key).close()

    def forward(self, bot_id: str, message: pb.BotMessage) -> bool:
        upstream = self._routes.pop((bot_id, message.action_reply.decision_id), None)
        if upstream is None:
            return False
        upstream.send(message)
        return True

    # the worker's side
    def route(self, bot_id: str, decision_id: str, upstream: Upstream) -> None:
        if len(self._routes) > 10_000:  # answered decisions are popped; abandoned ones are few
            self._routes.clear()
        self._routes[(bot_id, decision_id)] = upstream

    def bots(self) -> list[str]:
        return list(self._direct)

    def want(self, remote: RemoteTables) -> None:
        """Open the relays the work queue says are needed; close those not needed for LINGER_SECONDS
        (kept meanwhile, a relay carries the bot's next table on that worker at once: the table
        need not wait for this worker to look at the queue again and connect)."""
        needed = {(bot, address): tables for bot, by_address in remote.items() if bot in self._direct
                  for address, tables in by_address.items() if address != self.own_address}
        now = time.monotonic()
        for key in needed:
            self._needed_at[key] = now
        for key in [k for k in self._upstreams if k not in needed]:
            if now - self._needed_at.get(key, now) >= LINGER_SECONDS or self._upstreams[key].done:
                self._upstreams.pop(key).close()
                self._needed_at.pop(key, None)
        for (bot, address), tables in needed.items():
            current = self._upstreams.get((bot, address))
            if current is not None and not current.done:
                continue  # it carries all of the bot's seats there, new tables too: never churn it
            token = self._token_of(bot)
            if token is None:
                continue
            self._upstreams[(bot, address)] = Upstream(self, bot, token, address, tables, self._direct[bot])

    def close(self) -> None:
        for upstream in self._upstreams.values():
            upstream.close()
        self._upstreams.clear()
