"""Starting `arena gateway` as a process, and a scripted agent speaking its JSON."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from websockets.asyncio.client import ClientConnection, connect

from arena.gateway.limits import GatewayLimits
from arena.gateway.server import Gateway, listening_socket
from tests.server.procs import ROOT, env


def start_gateway(dealer: str, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """`arena gateway --dealer ... --listen 127.0.0.1:0`; the process and its ws://.../play URL."""
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "gateway", "--dealer", dealer,
                             "--listen", "127.0.0.1:0", *extra],
                            cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"listening on (ws://\S+/play)", line)
    if found is None:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"gateway did not start: {line!r} {out!r} {err!r}")
    return proc, found.group(1)


async def open_agent(url: str, token: str | None, *, text: bool = False) -> ClientConnection:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return await connect(url + ("?view=text" if text else ""), additional_headers=headers,
                         max_size=2**24)


async def recv(ws: ClientConnection, timeout: float = 30.0) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    return data


def flat(frame: dict[str, Any]) -> list[dict[str, Any]]:
    """A frame's dealer messages (a batch opened)."""
    if "batch" in frame:
        return list(frame["batch"]["messages"])
    return [frame]


@contextlib.asynccontextmanager
async def gateway_running(dealer: str, limits: GatewayLimits | None = None, *,
                          root_certificates: bytes | None = None) -> AsyncIterator[str]:
    """The gateway app in this event loop, served by uvicorn as `arena gateway` serves it; its
    ws://.../play URL."""
    gateway = Gateway(dealer, limits=limits, root_certificates=root_certificates)
    sock = listening_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(
        gateway.starlette(), lifespan="off", log_level="warning", ws="websockets-sansio",
        ws_max_size=gateway.limits.hard_frame_bytes))
    serving = asyncio.ensure_future(server.serve(sockets=[sock]))
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield f"ws://127.0.0.1:{sock.getsockname()[1]}/play"
    finally:
        server.should_exit = True
        await serving
        await gateway.close()
