"""The `arena.v1.Dealer` gRPC service: authentication, the hello handshake and stream wiring."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import grpc

from arena import __version__
from arena.match.lobby import Lobby
from arena.server import convert, wire
from arena.server.auth import TokenBook
from arena.server.bridge import TrioGuest
from arena.server.config import BotEntry, Limits
from arena.server.connection import Connection, Undecodable
from arena.server.errors import (
    BadHandshake,
    Busy,
    DirectConnectionWins,
    Flooding,
    Malformed,
    NotSeated,
    Replaced,
    ShuttingDown,
    StreamEnded,
    Unauthenticated,
)
from arena.server.guard import Backoff, peer_host
from arena.server.inbox import Deserializer, ReplyInbox
from arena.server.stats import TransportStats
from arena.v1 import arena_pb2 as pb

if TYPE_CHECKING:
    from arena.server.relay import Relay

log = logging.getLogger("arena.server")

SERVICE_NAME = "arena.v1.Dealer"
PROTOCOL_VERSION = 1
MIN_PROTOCOL_VERSION = 1

Context = grpc.aio.ServicerContext[Any, Any]

MAX_PENDING_FAILURES = 8  # failed authentications of one peer being delayed at once
# Refusals that wait like failed authentications: what a client retrying in a loop after a cut
# for flooding or garbage gets (a refused stream costs the dealer about 0.5 ms of CPU).
_SLOWED = (Busy, Malformed, BadHandshake)

Metadata = Iterable[tuple[str, str | bytes]] | None
TABLES_KEY = "arena-tables"  # a table stream: only for these tables (PERMISSION_DENIED otherwise)
RELAY_KEY = "arena-relay"  # a stream opened by another worker on a bot's behalf


def _peer(context: Context) -> str:
    try:
        return str(context.peer())
    except Exception:  # a peer address is for the log only
        return "unknown peer"


class DealerService:
    """Play streams and GetInfo. Table state lives in trio; this side only moves messages."""

    def __init__(self, *, book: TokenBook, lobby: Lobby, guest: TrioGuest, limits: Limits) -> None:
        self._book = book
        self._lobby = lobby
        self._guest = guest
        self._limits = limits
        self._encoder = wire.Encoder()
        self.stats = TransportStats()
        self._connections: dict[str, Connection] = {}
        self._inbox = ReplyInbox(guest, lobby)  # the replies read, on their way into trio
        self._accepting = True
        self._floods = Backoff(limits.flood_backoff_seconds, limits.flood_backoff_max_seconds)
        self._auth_failures = Backoff(limits.auth_failure_delay_seconds,
                                      limits.auth_failure_max_delay_seconds)
        self._pending_failures: dict[str, int] = {}  # peer -> failed attempts being delayed
        self._relayed: set[str] = set()  # bots whose stream here is a worker's relay, not the bot
        self.relay: Relay | None = None  # a worker's relay to the tables on other workers

    def add_bots(self, bots: Iterable[BotEntry]) -> None:
        self._book.add(bots)

    def remove_bots(self, bot_ids: Iterable[str]) -> None:
        """Forget bots' tokens and end their streams (OK, after what is queued for them): a
        hosted instance whose match has ended."""
        bot_ids = list(bot_ids)
        self._book.remove(bot_ids)
        for bot_id in bot_ids:
            conn = self._connections.get(bot_id)
            if conn is not None:
                conn.finish(None)

    def token_of(self, bot_id: str) -> str | None:
        return self._book.token_of(bot_id)

    def connected_bots(self) -> list[str]:
        """Bots connected to this server themselves (not through another worker's relay)."""
        return [bot for bot in self._connections if bot not in self._relayed]

    def handler(self) -> grpc.GenericRpcHandler:
        """The service as a generic handler; Play writes pre-serialized messages (no response
        serializer: gRPC sends the bytes as they are)."""
        return grpc.method_handlers_generic_handler(SERVICE_NAME, {
            "Play": grpc.stream_stream_rpc_method_handler(
                self.play, request_deserializer=Deserializer(self.stats)),
            "GetInfo": grpc.unary_unary_rpc_method_handler(
                self.get_info, request_deserializer=pb.GetInfoRequest.FromString,
                response_serializer=pb.ServerInfo.SerializeToString),
        })

    async def get_info(self, request: pb.GetInfoRequest, context: Context) -> pb.ServerInfo:
        return pb.ServerInfo(server_version=__version__, protocol_version=PROTOCOL_VERSION,
                             min_protocol_version=MIN_PROTOCOL_VERSION,
                             server_time=convert.timestamp(time.time()))

    async def play(self, requests: object, context: Context) -> None:
        bot: BotEntry | None = None
        try:
            bot = await self._authenticate(context)
            if not self._accepting:
                raise ShuttingDown("the server is shutting down")
            relayed = self._check_table_stream(bot.bot_id, context.invocation_metadata())
            wait = self._floods.wait_left(bot.bot_id)
            if wait > 0:
                raise Busy(f"this bot was cut for flooding; come back in {wait:.1f} s")
            hello = await self._hello(context)
            old = self._connections.get(bot.bot_id)
            if old is not None and old.is_open and not self._limits.allow_takeover:
                log.warning("bot %s: second stream from %s refused; the first is still open",
                            bot.bot_id, _peer(context))
                raise Replaced("another stream with this token is open; it must drop first")
        except StreamEnded as exc:
            self.stats.ended[exc.code.name] += 1
            if isinstance(exc, Malformed) and bot is not None:
                self._floods.strike(bot.bot_id)
            log.info("refused a stream from %s: %s: %s", _peer(context), exc.code.name, exc.message)
            if isinstance(exc, _SLOWED):  # a client retrying in a loop: each refusal costs CPU
                await self._failed_attempt(peer_host(_peer(context)))
            await context.abort(exc.code, exc.message)
            return
        if hello is None:
            return
        conn = Connection(bot_id=bot.bot_id, session_id=secrets.token_hex(8),
                          batches=hello.accept_batches, limits=self._limits,
                          encoder=self._encoder, stats=self.stats,
                          every_event=hello.subscription != pb.SUBSCRIPTION_REQUESTS_AND_RESULTS,
                          defer=self._guest.after_tick)
        self.stats.streams += 1
        old = self._connections.get(bot.bot_id)
        if relayed and old is not None and bot.bot_id not in self._relayed:
            await context.abort(DirectConnectionWins.code, "the bot is connected to this worker directly")
            return
        self._connections[bot.bot_id] = conn
        if relayed:
            self._relayed.add(bot.bot_id)
        else:
            self._relayed.discard(bot.bot_id)
        if old is not None:
            log.warning("bot %s: a new stream from %s takes over its seats", bot.bot_id,
                        _peer(context))
            old.fail(Replaced("another stream with the same token took over this bot's seats"))
        conn.deliver(pb.DealerMessage(welcome=pb.Welcome(
            server_version=__version__, protocol_version=PROTOCOL_VERSION, bot_id=bot.bot_id,
            bot_name=bot.name, session_id=conn.session_id,
            seats=[pb.SeatAssignment(match_id=s.match_id, seat=s.seat)
                   for s in self._lobby.seats_of(bot.bot_id)],
            server_time=convert.timestamp(time.time()))))
        self._guest.call_soon(self._lobby.attach, bot.bot_id, conn)
        log.info("bot %s connected from %s (%s)", bot.name, _peer(context),
                 hello.bot_name or "no name given")
        error: StreamEnded | None = None
        relay = None if relayed else self.relay
        if relay is not None:
            relay.connected(bot.bot_id, conn)
        try:
            error = await conn.serve(context, self._on_message)
        finally:
            if relay is not None:
                relay.disconnected(bot.bot_id, conn)
            self._guest.call_soon(self._lobby.detach, bot.bot_id, conn)
            if self._connections.get(bot.bot_id) is conn:
                del self._connections[bot.bot_id]
                self._relayed.discard(bot.bot_id)
            log.info("bot %s disconnected (%s)", bot.name,
                     "OK" if error is None else f"{error.code.name}: {error.message}")
        self.stats.ended[error.code.name if error is not None else "OK"] += 1
        if isinstance(error, Flooding | Malformed):  # both may not come straight back
            wait = self._floods.strike(bot.bot_id)
            log.warning("bot %s cut: %s; it may come back in %.1f s", bot.bot_id, error.message,
                        wait)
        elif error is not None and not isinstance(error, Replaced | ShuttingDown):
            log.warning("bot %s: stream ended %s: %s", bot.bot_id, error.code.name, error.message)
        if error is not None:
            await context.abort(error.code, error.message)

    async def _authenticate(self, context: Context) -> BotEntry:
        """The bot of the call's token. A failed attempt waits (:meth:`_failed_attempt`), and a
        peer with many delayed failures is refused at once, unchecked."""
        peer = peer_host(_peer(context))
        # Hosted instances share the dealer's Unix socket, and so one peer: a right token (each
        # instance's own, 256 bits) is let in whatever another instance tried.
        unix = peer.startswith("unix:")
        crowded = self._pending_failures.get(peer, 0) >= MAX_PENDING_FAILURES
        if crowded and not unix:
            raise Busy("too many failed authentications or refused streams from this address; "
                       "slow down")
        try:
            return self._book.identify(context.invocation_metadata())
        except Unauthenticated:
            if crowded:
                raise Busy("too many failed authentications from this socket; slow down") from None
            await self._failed_attempt(peer)
            raise

    async def _failed_attempt(self, peer: str) -> None:
        """Answer a failed attempt from ``peer`` (a wrong token, a stream refused for flooding
        or garbage) only after a delay that doubles with every failure from that address: a
        token cannot be guessed quickly, and a client retrying in a loop costs the dealer
        little CPU. Beyond MAX_PENDING_FAILURES waiting at once, at once."""
        pending = self._pending_failures.get(peer, 0)
        if pending >= MAX_PENDING_FAILURES:
            return
        delay = self._auth_failures.strike(peer)
        strikes = self._auth_failures.strikes(peer)
        if strikes in (5, 20, 100):
            log.warning("%d failed authentications or refused streams from %s", strikes, peer)
        self._pending_failures[peer] = pending + 1
        try:
            await asyncio.sleep(delay)
        finally:
            left = self._pending_failures.get(peer, 1) - 1
            if left > 0:
                self._pending_failures[peer] = left
            else:
                self._pending_failures.pop(peer, None)

    async def _hello(self, context: Context) -> pb.Hello | None:
        try:
            first = await asyncio.wait_for(context.read(), self._limits.hello_timeout_seconds)
        except TimeoutError:
            raise BadHandshake(f"no hello within {self._limits.hello_timeout_seconds:g} s") from None
        if first is grpc.aio.EOF:
            return None
        if isinstance(first, Undecodable):
            raise Malformed(f"{first.size} bytes that are not a BotMessage")
        assert isinstance(first, pb.BotMessage)
        if first.WhichOneof("payload") != "hello":
            raise BadHandshake("the first message on a Play stream must be 'hello'")
        version = first.hello.protocol_version
        if version and not MIN_PROTOCOL_VERSION <= version <= PROTOCOL_VERSION:
            raise BadHandshake(f"protocol version {version} is not supported; this server speaks "
                               f"{MIN_PROTOCOL_VERSION} to {PROTOCOL_VERSION}")
        return first.hello

    def _check_table_stream(self, bot_id: str, metadata: Metadata) -> bool:
        """A table stream (``arena-tables: ID,...``) only for tables where the bot is seated here;
        True when the stream is a worker's relay (``arena-relay``)."""
        tables: list[str] = []
        relayed = False
        for key, value in metadata or ():
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
            if key.lower() == TABLES_KEY:
                tables += [t for t in text[:4096].split(",") if t]
            elif key.lower() == RELAY_KEY:
                relayed = True
        seated = {seat.match_id for seat in self._lobby.seats_of(bot_id)}
        missing = [t for t in tables[:64] if t not in seated]
        if missing or len(tables) > 64:
            raise NotSeated(f"bot {bot_id!r} holds no seat at table(s) {', '.join(missing[:5])} here")
        return relayed

    def _on_message(self, conn: Connection, message: pb.BotMessage) -> None:
        kind = message.WhichOneof("payload")
        if kind == "action_reply" and self.relay is not None and self.relay.forward(conn.bot_id, message):
            self.stats.replies_in += 1  # an answer to a table on another worker: relayed there
        elif kind == "action_reply":
            self.stats.replies_in += 1
            self._inbox.take(conn, message.action_reply)  # checked, into trio
        elif kind == "ping":
            ping = message.ping
            pong = pb.Pong(nonce=ping.nonce, server_time=convert.timestamp(time.time()))
            if ping.HasField("client_time"):
                pong.client_time.CopyFrom(ping.client_time)
            conn.deliver(pb.DealerMessage(pong=pong))
        # A repeated hello or an empty message changes nothing; it only costs rate budget.

    # ------------------------------------------------------------------ shutdown

    def stop_accepting(self) -> None:
        self._accepting = False

    async def close_all(self, final: StreamEnded | None, *, flush_seconds: float,
                        farewell: Callable[[str], str] | None = None) -> None:
        """End every stream after flushing its queue (for at most ``flush_seconds``). Each bot
        connected here itself is sent a ``StreamEnding`` last: ``final`` None means every match
        is over (``farewell(bot_id)`` says so in words, e.g. a forfeited match's reason), else
        the server stops early (``final``'s message)."""
        self._accepting = False
        conns = list(self._connections.values())
        for conn in conns:
            if conn.bot_id not in self._relayed and conn.is_open:
                conn.deliver(pb.DealerMessage(stream_ending=_ending(conn.bot_id, final, farewell)))
            conn.finish(final)
        await _ended(conns, flush_seconds)
        for conn in conns:
            if conn.is_open:
                conn.fail(final or ShuttingDown("the server is shutting down"))
        await _ended(conns, 1.0)


async def _ended(conns: list[Connection], timeout_seconds: float) -> None:
    """Wait until every one of ``conns`` has ended, for at most ``timeout_seconds``."""
    waits = [asyncio.ensure_future(conn.done.wait()) for conn in conns if not conn.done.is_set()]
    if waits:
        _, pending = await asyncio.wait(waits, timeout=timeout_seconds)
        for task in pending:
            task.cancel()


def _ending(bot_id: str, final: StreamEnded | None,
            farewell: Callable[[str], str] | None) -> pb.StreamEnding:
    if final is not None:
        return pb.StreamEnding(reason=pb.STREAM_END_REASON_SHUTTING_DOWN,
                               message=f"{final.message}; reconnect to resume if it restarts")
    words = farewell(bot_id) if farewell is not None else ""
    return pb.StreamEnding(reason=pb.STREAM_END_REASON_MATCHES_OVER,
                           message=words or "all your matches on this dealer are over")
