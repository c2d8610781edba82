"""Mutual TLS between workers (`arena.server.peer_tls`): the peer port lets in a relay holding a
certificate of the workers' CA, and refuses one signed by another CA, one without a certificate and
a plaintext one; a relay refuses a worker whose certificate is not of its CA; key files must be
owner-only. Certificates come from deploy/make-peer-certs.sh (the openssl CLI), as in deploy/."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import grpc
import pytest

from arena.engine.errors import ConfigError
from arena.server.app import DealerServer
from arena.server.config import ServerConfig
from arena.server.peer_tls import PeerCredentials, PeerTls, check_key_file
from arena.server.relay import Relay
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parents[2]


def make_certs(folder: Path) -> PeerTls:
    """A throwaway CA and a worker certificate it signed, owner-only."""
    subprocess.run(["sh", str(ROOT / "deploy" / "make-peer-certs.sh"), str(folder)], check=True,
                   capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    return PeerTls(folder / "worker.crt", folder / "worker.key", folder / "ca.crt")


@pytest.fixture(scope="module")
def league_certs(tmp_path_factory: pytest.TempPathFactory) -> PeerTls:
    return make_certs(tmp_path_factory.mktemp("league-ca"))


@pytest.fixture(scope="module")
def other_certs(tmp_path_factory: pytest.TempPathFactory) -> PeerTls:
    return make_certs(tmp_path_factory.mktemp("other-ca"))


async def _get_info(channel: grpc.aio.Channel) -> str:
    """"ok", or the status code name of the failed call."""
    try:
        info = await pb_grpc.DealerStub(channel).GetInfo(pb.GetInfoRequest(), timeout=10)
    except grpc.aio.AioRpcError as exc:
        return exc.code().name
    finally:
        await channel.close()
    assert info.protocol_version >= 1
    return "ok"


def test_the_peer_port_admits_only_workers_of_the_same_ca(league_certs: PeerTls,
                                                          other_certs: PeerTls) -> None:
    mine, stranger = league_certs.load(), other_certs.load()

    async def main() -> dict[str, str]:
        server = DealerServer(ServerConfig(listen="127.0.0.1:0", bots=(), matches=()), open_ended=True,
                              peer=("127.0.0.1:0", mine.server()))
        bots_port = await server.start()
        peer = f"127.0.0.1:{server.peer_port}"
        assert server.peer_port not in (0, bots_port)
        # A server with the other CA's certificate (mutual TLS, no service: UNIMPLEMENTED to a
        # client it lets in): a relay of this league must refuse it; one of its CA gets through.
        impostor = grpc.aio.server()
        impostor_port = impostor.add_secure_port("127.0.0.1:0", stranger.server())
        await impostor.start()
        no_cert = grpc.ssl_channel_credentials(root_certificates=mine.ca)
        try:
            return {
                "worker": await _get_info(Relay(token_of=lambda _: None, own_address="", peer=mine)
                                          .channel(peer)),
                "other CA": await _get_info(Relay(token_of=lambda _: None, own_address="", peer=stranger)
                                            .channel(peer)),
                "no client certificate": await _get_info(grpc.aio.secure_channel(
                    peer, no_cert, options=mine.channel_options())),
                "plaintext": await _get_info(grpc.aio.insecure_channel(peer)),
                "impostor worker": await _get_info(Relay(token_of=lambda _: None, own_address="", peer=mine)
                                                   .channel(f"127.0.0.1:{impostor_port}")),
                "impostor's own kind": await _get_info(Relay(token_of=lambda _: None, own_address="",
                                                             peer=stranger).channel(f"127.0.0.1:{impostor_port}")),
                "bots' port": await _get_info(grpc.aio.insecure_channel(f"127.0.0.1:{bots_port}")),
            }
        finally:
            await impostor.stop(None)
            server.stop()
            await server.run_until_done()

    assert asyncio.run(main()) == {"worker": "ok", "other CA": "UNAVAILABLE",
                                   "no client certificate": "UNAVAILABLE", "plaintext": "UNAVAILABLE",
                                   "impostor worker": "UNAVAILABLE", "impostor's own kind": "UNIMPLEMENTED",
                                   "bots' port": "ok"}


@pytest.mark.no_dealer
def test_key_files_must_be_owner_only(league_certs: PeerTls, tmp_path: Path) -> None:
    check_key_file(league_certs.key_path, "--peer-key")  # 0600 from the script
    key = tmp_path / "worker.key"
    key.write_bytes(league_certs.key_path.read_bytes())
    for mode in (0o644, 0o640, 0o604):
        key.chmod(mode)
        with pytest.raises(ConfigError, match=f"owner-only \\(chmod 600\\); its mode is {mode:04o}"):
            PeerTls(league_certs.cert_path, key, league_certs.ca_path).load()
    key.chmod(0o400)
    check_key_file(key, "--peer-key")
    with pytest.raises(ConfigError, match=r"--peer-key .*: No such file"):
        check_key_file(tmp_path / "missing.key", "--peer-key")
    with pytest.raises(ConfigError, match=r"--peer-ca .*: not a PEM certificate file"):
        PeerTls(league_certs.cert_path, league_certs.key_path, key).load()
    if os.geteuid() == 0:  # a key of another user is refused (root can make one here)
        key.chmod(0o600)
        os.chown(key, 4242, -1)
        with pytest.raises(ConfigError, match="owned by another user"):
            check_key_file(key, "--peer-key")


@pytest.mark.no_dealer
def test_the_worker_command_refuses_a_bad_peer_setting_cleanly(league_certs: PeerTls, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli import main

    assert main(["worker", "--store", "postgresql://nobody@127.0.0.1:1/x", "--peer-cert",
                 str(league_certs.cert_path)]) == 2
    key = tmp_path / "open.key"
    key.write_bytes(league_certs.key_path.read_bytes())
    key.chmod(0o644)
    assert main(["worker", "--store", "postgresql://nobody@127.0.0.1:1/x", "--peer-cert",
                 str(league_certs.cert_path), "--peer-key", str(key), "--peer-ca",
                 str(league_certs.ca_path)]) == 2
    assert main(["worker", "--store", "postgresql://nobody@127.0.0.1:1/x", "--tls-cert",
                 str(league_certs.cert_path), "--tls-key", str(key)]) == 2  # the bots' TLS key too
    captured = capsys.readouterr()
    assert "give --peer-cert, --peer-key and --peer-ca together" in captured.err
    assert f"--peer-key {key}: a private key must be owner-only (chmod 600); its mode is 0644" in captured.err
    assert f"--tls-key {key}: a private key must be owner-only" in captured.err
    assert "Traceback" not in captured.err + captured.out


@pytest.mark.no_dealer
def test_credentials_are_read_once(league_certs: PeerTls) -> None:
    loaded = league_certs.load()
    assert isinstance(loaded, PeerCredentials) and loaded.server_name == "arena-worker"
    assert loaded.channel_options() == [("grpc.ssl_target_name_override", "arena-worker")]
