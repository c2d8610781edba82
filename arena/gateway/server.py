"""`arena gateway`: agents play over a WebSocket of JSON, relayed to the dealer's gRPC stream.

Routes: ``/agent.txt`` (the protocol, for an agent to read first), ``/play`` (the WebSocket;
``?view=text`` adds text views and takes text replies), ``/metrics`` (Prometheus: the relay time
and the agents' think time, apart), ``/healthz``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import sys
from collections import Counter
from collections.abc import Generator
from typing import Any

import grpc
import uvicorn
from prometheus_client import CollectorRegistry, Histogram, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from arena.engine.errors import ConfigError
from arena.gateway.agenttext import agent_text
from arena.gateway.dealerlink import dealer_channel
from arena.gateway.limits import GatewayLimits
from arena.gateway.session import AgentSession, Flooded, frame
from arena.server.guard import Backoff
from arena.v1 import arena_pb2_grpc as pb_grpc

log = logging.getLogger("arena.gateway")
BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60, 300, 1800, 3600)


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer T`` header (None if absent or malformed)."""
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 512 or not token.isprintable():
        return None
    return token


class Gateway:
    """The gateway's app: one gRPC channel to the dealer, one ``Play`` call per socket."""

    def __init__(self, dealer: str, *, limits: GatewayLimits | None = None,
                 root_certificates: bytes | None = None) -> None:
        self.dealer = dealer
        self.root_certificates = root_certificates
        self.limits = limits or GatewayLimits()
        self.registry = CollectorRegistry()
        self.relay = Histogram("arena_gateway_relay_seconds", "Time from reading a decision "
                               "request from the dealer to writing it to the agent",
                               registry=self.registry, buckets=BUCKETS)
        self.think = Histogram("arena_gateway_agent_think_seconds", "Time from writing a decision "
                               "request to the agent to reading its reply (the agent's think "
                               "time as the gateway sees it)", registry=self.registry,
                               buckets=BUCKETS)
        self.channel: grpc.aio.Channel | None = None
        self.auth_failures = Backoff(self.limits.auth_failure_delay_seconds,
                                     self.limits.auth_failure_max_delay_seconds)
        self.pending: Counter[str] = Counter()  # agent address -> streams not yet welcomed

    def starlette(self) -> Starlette:
        return Starlette(routes=[
            Route("/agent.txt", self.agent_txt), Route("/healthz", self.healthz),
            Route("/metrics", self.metrics), WebSocketRoute("/play", self.play)])

    async def agent_txt(self, request: Request) -> Response:
        return PlainTextResponse(agent_text(self.limits))

    async def healthz(self, request: Request) -> Response:
        return PlainTextResponse("ok\n")

    async def metrics(self, request: Request) -> Response:
        return Response(generate_latest(self.registry), media_type="text/plain; version=0.0.4")

    def _observe(self, name: str, seconds: float) -> None:
        (self.relay if name == "relay_to_agent" else self.think).observe(seconds)

    async def play(self, ws: WebSocket) -> None:
        await ws.accept()
        address = ws.client.host if ws.client is not None else ""
        refusal = self._refusal(address)
        token = bearer(ws.headers.get("authorization"))
        if refusal is None and token is None:
            self.auth_failures.strike(address)
            refusal = grpc.StatusCode.UNAUTHENTICATED, (
                "send the seat token in the upgrade request's header 'Authorization: Bearer "
                "<token>'")
        if refusal is not None or token is None:
            code, message = refusal or (grpc.StatusCode.UNAUTHENTICATED, "")
            log.warning("refused a connection from %s: %s %s", address, code.name, message)
            await ws.send_text(frame("stream_ended", code=code.name, message=message))
            await ws.close(code=4000 + code.value[0])
            return
        if self.channel is None:
            self.channel = dealer_channel(self.dealer, self.root_certificates)
        call = pb_grpc.DealerStub(self.channel).Play(metadata=(("authorization",
                                                                f"Bearer {token}"),))
        self.pending[address] += 1
        welcomed = False

        def on_welcome() -> None:
            nonlocal welcomed
            if not welcomed:
                welcomed = True
                self._unpend(address)

        session = AgentSession(call=call, send_text=ws.send_text, limits=self.limits,
                               text_mode=ws.query_params.get("view") == "text",
                               observe=self._observe, on_welcome=on_welcome)
        try:
            await self._relay(ws, call, session, address)
        finally:
            if not welcomed:
                self._unpend(address)

    def _refusal(self, address: str) -> tuple[grpc.StatusCode, str] | None:
        """Why the gateway opens no stream for an agent at ``address`` now (None: it may)."""
        wait = self.auth_failures.wait_left(address)
        if wait > 0:
            return grpc.StatusCode.UNAVAILABLE, (
                f"{self.auth_failures.strikes(address)} refused token(s) from your address: "
                f"connect again in {wait:.1f} s")
        if self.pending[address] >= self.limits.max_pending_per_address:
            return grpc.StatusCode.RESOURCE_EXHAUSTED, (
                f"{self.limits.max_pending_per_address} connections from your address are "
                "still waiting for the dealer's welcome")
        return None

    def _unpend(self, address: str) -> None:
        self.pending[address] -= 1
        if self.pending[address] <= 0:
            del self.pending[address]

    async def _relay(self, ws: WebSocket, call: Any, session: AgentSession, address: str
                     ) -> None:
        relay = asyncio.ensure_future(session.relay_dealer())
        reader = asyncio.ensure_future(self._read_agent(ws, session))
        await asyncio.wait((relay, reader), return_when=asyncio.FIRST_COMPLETED)
        if relay.done():
            reader.cancel()
            code, details = relay.result()
            if code == grpc.StatusCode.UNAUTHENTICATED.name:
                self.auth_failures.strike(address)
            log.info("agent %s from %s: the dealer ended the stream: %s %s",
                     session.bot_name or "(no welcome)", address, code, details)
            with contextlib.suppress(Exception):  # the agent may be gone already
                await ws.send_text(frame("stream_ended", code=code, message=details))
                number = getattr(grpc.StatusCode, code).value[0]
                await ws.close(code=1000 if number == 0 else 4000 + number)
        else:
            call.cancel()  # the agent left: the dealer sees the seat disconnect
            why = reader.result()
            log.info("agent %s from %s: %s", session.bot_name or "(no welcome)", address,
                     why or "disconnected")
            if why:
                with contextlib.suppress(Exception):
                    await ws.close(code=1008, reason=why[:120])
            relay.cancel()
        await asyncio.gather(relay, reader, return_exceptions=True)

    async def _read_agent(self, ws: WebSocket, session: AgentSession) -> str:
        """Frames from the agent until it closes (""), or why it was cut."""
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    return ""
                data = message.get("text")
                if data is None:
                    data = message.get("bytes") or b""
                await session.take_frame(data)
        except WebSocketDisconnect:
            return ""
        except Flooded as exc:
            log.warning("gateway: agent cut for flooding: %s", exc)
            return f"flood: {exc}"
        except (grpc.aio.UsageError, asyncio.InvalidStateError, grpc.aio.AioRpcError):
            return ""  # the stream is over; relay_dealer says how

    async def close(self) -> None:
        if self.channel is not None:
            await self.channel.close()


class _QuietServer(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


def split_listen(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"--listen {text!r}: give HOST:PORT, e.g. 127.0.0.1:8765")
    return host.strip("[]") or "127.0.0.1", int(port)


def listening_socket(host: str, port: int) -> socket.socket:
    """The gateway's port, bound now, with Nagle's algorithm off: the connections accepted from it
    inherit TCP_NODELAY, so a decision request written right after an event is not held back
    until the agent acknowledges the event (up to 40 ms of delayed ACK on Linux)."""
    from arena.web.server import bind

    sock = bind(host, port)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def run_gateway(dealer: str, listen: str, *, limits: GatewayLimits | None = None,
                root_certificates: bytes | None = None) -> int:
    """Serve until interrupted; prints the URL first (one line, flushed)."""
    host, port = split_listen(listen)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    log.setLevel(logging.INFO)  # every agent's end of stream, refusals and floods, timestamped
    gateway = Gateway(dealer, limits=limits, root_certificates=root_certificates)
    sock = listening_socket(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    server = _QuietServer(uvicorn.Config(
        gateway.starlette(), lifespan="off", access_log=False, log_level="warning",
        ws_max_size=gateway.limits.hard_frame_bytes, ws="websockets-sansio",
        timeout_graceful_shutdown=1))
    print(f"gateway: listening on ws://{shown}:{bound_port}/play (agent guide: "
          f"http://{shown}:{bound_port}/agent.txt); dealer {dealer}", flush=True)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, lambda: setattr(server, "should_exit", True))
        try:
            await server.serve(sockets=[sock])
        finally:
            await gateway.close()

    asyncio.run(main())
    return 0
