"""A worker's relay carries the bots that connect the moment its port opens (in this process, on a
real PostgreSQL). The port opens before the worker knows the address other workers reach it at (a
database query when it listens on a wildcard); a bot connected in that window was never handed to
the relay, so its seats on other workers waited for it forever while it played here: the one-off
hang of tests/league/test_netns.py (w2 played all its hands, w1 none)."""

from __future__ import annotations

import io
import queue
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.league.worker import Worker, WorkerSettings
from arena.server.relay import Relay
from arena.storage.postgres import PostgresStore
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc as pb_grpc
from tests.league.test_worker_lifecycle import cheap_token_hash, queued_league
from tests.pgserver import PostgresServer

__all__ = ["cheap_token_hash"]  # the fixture (autouse) applies here too


class EarlyBot:
    """A bot's Play stream, opened and welcomed from another thread; it stays open until closed."""

    def __init__(self, port: int, token: str) -> None:
        self._outgoing: queue.Queue[pb.BotMessage | None] = queue.Queue()
        self._outgoing.put(pb.BotMessage(hello=pb.Hello(bot_name="early", protocol_version=1)))
        self._channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self._call = pb_grpc.DealerStub(self._channel).Play(
            self._messages(), metadata=(("authorization", f"Bearer {token}"),), timeout=60)
        self.first = next(self._call)  # the welcome: the dealer has taken the stream

    def _messages(self) -> Iterator[pb.BotMessage]:
        while (message := self._outgoing.get()) is not None:
            yield message

    def close(self) -> None:
        self._outgoing.put(None)
        self._call.cancel()
        self._channel.close()


def test_a_bot_that_connects_before_the_worker_knows_its_address_is_relayed(
        tmp_path: Path, postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch) -> None:
    url = postgres.new_database()
    queued_league(tmp_path, url)
    store = PostgresStore(url)
    worker = Worker(store, WorkerSettings(name="w", listen="0.0.0.0:0", log_dir=tmp_path / "w"),
                    out=io.StringIO())
    bots: list[EarlyBot] = []
    original = Worker._own_address

    def own_address(self: Worker, listen: str, port: int) -> str:
        # The port is open and the address not known yet: a bot connects now (on a loaded machine
        # the query below can take seconds, and the SDK connects as soon as the port answers).
        assert self.server is not None
        bots.append(EarlyBot(self.server.port, "token-alpha-0001"))
        return original(self, listen, port)

    monkeypatch.setattr(Worker, "_own_address", own_address)
    carried: list[list[str]] = []

    def ready(port: int) -> None:
        assert worker.server is not None
        relay = worker.server.service.relay
        assert isinstance(relay, Relay)
        carried.append(relay.bots())  # whose seats on other workers it will look up and relay
        worker.stop()

    try:
        assert worker.run(on_ready=ready) is False  # stopped, not done
    finally:
        for bot in bots:
            bot.close()
        store.close()
    assert len(bots) == 1 and bots[0].first.WhichOneof("payload") == "welcome"
    assert carried == [["alpha"]]
