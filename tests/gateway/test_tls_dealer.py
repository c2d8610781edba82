"""A dealer serving TLS: the gateway and the MCP seat link reach it with `--tls-ca`, and a bad CA
file is a one-line error."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from arena_bot import play
from arena_bot.examples import calling_station

from arena.gateway.mcpserver import SeatLink
from arena.server.config import config_from_mapping
from tests.gateway.procs import flat, gateway_running, open_agent, recv
from tests.server.harness import running, token_for
from tests.server.procs import ROOT, env

pytestmark = [pytest.mark.timeout(90),
              pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")]


def test_the_gateway_and_the_mcp_link_reach_a_tls_dealer(tmp_path: Path) -> None:
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", "key.pem", "-out", "cert.pem", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   cwd=tmp_path, check=True, capture_output=True)
    roots = (tmp_path / "cert.pem").read_bytes()

    def config(names: tuple[str, str]) -> object:
        return config_from_mapping({
            "listen": "127.0.0.1:0", "hands": 2, "seed": 1, "rules": {"games": ["FT"]},
            "tls": {"cert": "cert.pem", "key": "key.pem"},
            "seats": [{"name": n, "token": token_for(n)} for n in names]}, base_dir=tmp_path)

    async def through_gateway() -> None:
        async with running(config(("agent", "station"))) as (_s, address), \
                gateway_running(address, root_certificates=roots) as url:
            other = asyncio.ensure_future(play(calling_station, server=address,
                                               token=token_for("station"), name="station",
                                               root_certificates=roots))
            ws = await open_agent(url, token_for("agent"))
            await ws.send(json.dumps({"hello": {"bot_name": "agent", "protocol_version": 1}}))
            answered = 0
            while "stream_ended" not in (frame := await recv(ws)):
                for message in flat(frame):
                    if "decision_request" in message:
                        request = message["decision_request"]
                        await ws.send(json.dumps({"action_reply": {
                            "decision_id": request["decision_id"], "seat": request["your_seat"],
                            "action": {"kind": "ACTION_KIND_FOLD"}}}))
                        answered += 1
            assert frame["stream_ended"]["code"] == "OK" and answered > 0
            await asyncio.wait_for(other, 20)

    async def through_mcp() -> None:
        async with running(config(("mcp", "station"))) as (_s, address):
            other = asyncio.ensure_future(play(calling_station, server=address,
                                               token=token_for("station"), name="station",
                                               root_certificates=roots))
            link = SeatLink(address, token_for("mcp"), "mcp", root_certificates=roots)
            view = await link.wait_for_decision(20)
            assert view.startswith("decision "), view
            await link.close()
            other.cancel()
            await asyncio.gather(other, return_exceptions=True)

    asyncio.run(through_gateway())
    asyncio.run(through_mcp())


def test_a_ca_file_that_cannot_be_used_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "not-a-cert.pem").write_text("hello\n")
    for path, words in (("missing.pem", "No such file or directory"),
                        ("not-a-cert.pem", "not a PEM certificate file")):
        out = subprocess.run([sys.executable, "-m", "arena.cli", "gateway", "--dealer",
                              "127.0.0.1:1", "--tls-ca", str(tmp_path / path)],
                             cwd=ROOT, env=env(), capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr.startswith(f"arena: error: --tls-ca {tmp_path / path}: {words}")
