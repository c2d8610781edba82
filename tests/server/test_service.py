"""Around the game: health checking, reflection, TLS, and the config file's error messages."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from arena_bot import play
from arena_bot.examples import calling_station
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.engine.errors import ConfigError
from arena.server.config import config_from_mapping, load_config
from tests.server.harness import make_config, running, token_for
from tests.server.procs import ROOT

pytestmark = pytest.mark.timeout(60)


def test_health_and_reflection_are_served(tmp_path: Path) -> None:
    config = make_config(tmp_path, ["a", "b"], hands=1)

    async def scenario() -> None:
        async with running(config) as (_server, address), grpc.aio.insecure_channel(address) as ch:
            health = health_pb2_grpc.HealthStub(ch)
            for service in ("", "arena.v1.Dealer"):
                reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
            stub = reflection_pb2_grpc.ServerReflectionStub(ch)
            request = reflection_pb2.ServerReflectionRequest(list_services="")
            responses = [r async for r in stub.ServerReflectionInfo(iter([request]))]
            names = {s.name for s in responses[0].list_services_response.service}
            assert {"arena.v1.Dealer", "grpc.health.v1.Health"} <= names

    asyncio.run(scenario())


def test_reflection_is_served_as_v1_and_v1alpha(tmp_path: Path) -> None:
    """Issue 39: grpcurl and recent tools ask ``grpc.reflection.v1`` first; the same answers
    come under both names, and the v1 service describes itself in its own package."""
    from google.protobuf import descriptor_pb2

    config = make_config(tmp_path, ["a", "b"], hands=1)

    async def ask(ch: grpc.aio.Channel, service: str,
                  request: reflection_pb2.ServerReflectionRequest
                  ) -> reflection_pb2.ServerReflectionResponse:
        call = ch.stream_stream(
            f"/{service}/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
        responses = [r async for r in call(iter([request]))]
        assert len(responses) == 1
        return responses[0]  # type: ignore[no-any-return]

    async def scenario() -> None:
        async with running(config) as (_server, address), grpc.aio.insecure_channel(address) as ch:
            for service in ("grpc.reflection.v1.ServerReflection",
                            "grpc.reflection.v1alpha.ServerReflection"):
                listed = await ask(ch, service, reflection_pb2.ServerReflectionRequest(
                    list_services=""))
                names = {s.name for s in listed.list_services_response.service}
                assert names == {"arena.v1.Dealer", "grpc.health.v1.Health",
                                 "grpc.reflection.v1.ServerReflection",
                                 "grpc.reflection.v1alpha.ServerReflection"}, (service, names)
                found = await ask(ch, service, reflection_pb2.ServerReflectionRequest(
                    file_containing_symbol="arena.v1.Dealer"))
                files = [descriptor_pb2.FileDescriptorProto.FromString(data) for data in
                         found.file_descriptor_response.file_descriptor_proto]
                assert "arena/v1/arena.proto" in {f.name for f in files}
            own = await ask(ch, "grpc.reflection.v1.ServerReflection",
                            reflection_pb2.ServerReflectionRequest(
                                file_containing_symbol="grpc.reflection.v1.ServerReflection"))
            file = descriptor_pb2.FileDescriptorProto.FromString(
                own.file_descriptor_response.file_descriptor_proto[0])
            assert file.name == "grpc/reflection/v1/reflection.proto"
            assert file.package == "grpc.reflection.v1"
            method = file.service[0].method[0]
            assert (method.name, method.input_type) == (
                "ServerReflectionInfo", ".grpc.reflection.v1.ServerReflectionRequest")

    asyncio.run(scenario())


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_tls_from_the_config(tmp_path: Path) -> None:
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", "key.pem", "-out", "cert.pem", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   cwd=tmp_path, check=True, capture_output=True)
    config = config_from_mapping({
        "listen": "127.0.0.1:0", "hands": 2, "seed": 1,
        "tls": {"cert": "cert.pem", "key": "key.pem"},
        "seats": [{"name": n, "token": token_for(n)} for n in ("a", "b")],
    }, base_dir=tmp_path)
    roots = (tmp_path / "cert.pem").read_bytes()

    async def scenario() -> None:
        async with running(config) as (server, address):
            results = await asyncio.gather(*(
                play(calling_station, server=address, token=token_for(n), name=n,
                     root_certificates=roots, reconnect_seconds=1.0) for n in ("a", "b")))
            await server.run_until_done()
        assert all(r.final_status == "OK" and r.decisions > 0 for r in results)
        (summary,) = server.summaries()
        assert summary.hands_played == 2

    asyncio.run(scenario())


@pytest.mark.parametrize(("change", "message"), [
    ({"colour": "red"}, "the config: unknown key(s) 'colour'"),
    ({"seats": [{"name": "a", "token": "short"}]}, "at least 8 characters"),
    ({"seats": [{"name": "a", "token": "same-token-1"}, {"name": "b", "token": "same-token-1"}]},
     "every seat needs its own token"),
    ({"tables": [{"id": "t", "seats": ["a", "zed"]}]}, "unknown seat name(s) ['zed']"),
    ({"rules": {"max_raisez": 4}}, "the config [rules]: unknown key(s) 'max_raisez'"),
    ({"limits": {"max_message_bytes": "big"}}, "'max_message_bytes' must be an integer"),
    ({"tls": {"cert": "c.pem"}}, "needs both 'cert' and 'key'"),
    ({"hands": 0}, "'hands' must be an integer (from 1 to 1e+07), got 0"),
    # Issue 7: every value validated, with the key and the allowed values.
    ({"hands": -5}, "'hands' must be an integer (from 1 to 1e+07), got -5"),
    ({"hands": 10**12}, "'hands' must be an integer (from 1 to 1e+07)"),
    ({"listen": "127.0.0.1:99999"}, "'listen' must be HOST:PORT with a port from 1 to 65535"),
    ({"listen": "nohost"}, "'listen' must be HOST:PORT"),
    ({"start_timeout_seconds": float("nan")}, "'start_timeout_seconds' must be a finite number"),
    ({"rules": {"decision_seconds": float("inf")}}, "'decision_seconds' must be a finite number"),
    ({"rules": {"time_bank_seconds": float("nan")}}, "'time_bank_seconds' must be a finite"),
    ({"rules": {"big_bet": 10}}, "'big_bet' (10) must be at least 'small_bet' (20)"),
    ({"limits": {"max_queued_messages": 0}}, "'max_queued_messages' must be an integer (from 1"),
    ({"limits": {"messages_per_second": -1.0}}, "'messages_per_second' must be a number (from 1"),
    ({"limits": {"max_queued_bytes": 0}}, "'max_queued_bytes' must be an integer"),
    ({"limits": {"hello_timeout_seconds": float("inf")}}, "'hello_timeout_seconds' must be a finite"),
    ({"limits": {"allow_takeover": "yes"}}, "'allow_takeover' must be true or false"),
    ({"match_id": "x" * 65}, "'match_id' must be 1 to 64 printable characters"),
])
@pytest.mark.no_dealer
def test_config_errors_are_clear(change: dict[str, object], message: str) -> None:
    data: dict[str, object] = {"seats": [{"name": n, "token": token_for(n)} for n in ("a", "b")]}
    data.update(change)
    with pytest.raises(ConfigError) as info:
        config_from_mapping(data)
    assert message in str(info.value)


def test_the_example_config_loads_and_bad_files_exit_2(tmp_path: Path) -> None:
    config = load_config(ROOT / "deploy" / "match.toml")
    assert config.matches and config.bots
    bad = tmp_path / "bad.toml"
    bad.write_text("hands = 'many'\n")
    out = subprocess.run([sys.executable, "-m", "arena.cli", "serve", "--config", str(bad)],
                         cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert out.returncode == 2
    assert out.stderr.startswith("arena: error:")
