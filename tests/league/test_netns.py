"""Issue 8: a league across machines, simulated with Linux network namespaces (``ip netns``, veth
pairs on a bridge): PostgreSQL, the coordinator, two workers and the bots each in a namespace of
their own, so each has its own 127.0.0.1 and anything that silently relies on loopback fails.
The workers are given no ``--advertise``: the address other workers reach them at is found, and
their relays speak mutual TLS. Needs root (CI runs as root); skipped only where namespaces cannot
be made at all."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest

from tests.league.test_league_e2e import ROOT, write_league
from tests.league.test_league_postgres import BOTS
from tests.league.test_secret_deals import _without_seed
from tests.league.test_workers import with_token_files
from tests.pgserver import _bin_dir
from tests.server.procs import env, stop_processes
from tests.server.test_peer_tls import make_certs

SUBNET = "10.213.0"
ADDRESSES = {"db": 2, "coord": 3, "w1": 11, "w2": 12, "bots": 20}


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)


class Network:
    """A bridge in a hub namespace and one namespace per host, each with its own address."""

    def __init__(self) -> None:
        self.prefix = f"arena{os.getpid() % 100000}"
        self.hub = f"{self.prefix}-hub"
        self.made: list[str] = []

    def ns(self, host: str) -> str:
        return f"{self.prefix}-{host}"

    def build(self) -> None:
        _ip("netns", "add", self.hub)
        self.made.append(self.hub)
        _ip("-n", self.hub, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.hub, "link", "set", "br0", "up")
        for host, last in ADDRESSES.items():
            ns = self.ns(host)
            _ip("netns", "add", ns)
            self.made.append(ns)
            _ip("-n", self.hub, "link", "add", f"v{host}", "type", "veth", "peer", "name", "eth0",
                "netns", ns)
            _ip("-n", self.hub, "link", "set", f"v{host}", "master", "br0", "up")
            _ip("-n", ns, "addr", "add", f"{SUBNET}.{last}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")

    def run_in(self, host: str, argv: list[str], **kwargs: object) -> subprocess.Popen[str]:
        return subprocess.Popen(["ip", "netns", "exec", self.ns(host), *argv],  # type: ignore[call-overload,no-any-return]
                                env=env(), stdin=subprocess.DEVNULL, text=True, **kwargs)

    def close(self) -> None:
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


def _network_or_skip() -> Network:
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("network namespaces need root and iproute2")
    network = Network()
    try:
        network.build()
    except (OSError, subprocess.SubprocessError) as exc:
        network.close()
        detail = getattr(exc, "stderr", b"") or b""
        pytest.skip(f"this machine cannot make network namespaces: {exc} {detail!r}")
    return network


@contextmanager
def postgres_in(network: Network) -> Iterator[str]:
    """A PostgreSQL cluster listening only on the db namespace's address; its URL."""
    bin_dir = _bin_dir()
    root = Path(tempfile.mkdtemp(prefix="arena-pg-netns-"))
    shutil.chown(root, "postgres")
    as_postgres = ["runuser", "-u", "postgres", "--"]
    data = root / "data"
    subprocess.run([*as_postgres, str(bin_dir / "initdb"), "-D", str(data), "-U", "arena", "-A", "trust",
                    "-E", "UTF8", "--no-sync", "--no-instructions"], check=True, capture_output=True,
                   timeout=120, stdin=subprocess.DEVNULL)
    with (data / "pg_hba.conf").open("a") as hba:  # initdb trusts loopback only
        hba.write(f"host all all {SUBNET}.0/24 trust\n")
    address = f"{SUBNET}.{ADDRESSES['db']}"
    ctl = ["ip", "netns", "exec", network.ns("db"), *as_postgres, str(bin_dir / "pg_ctl"), "-D", str(data)]
    subprocess.run([*ctl, "-o", f"-c listen_addresses={address} -p 5432 -c unix_socket_directories={root} "
                    "-c fsync=off", "-l", str(root / "server.log"), "-w", "-t", "60", "start"],
                   check=True, capture_output=True, timeout=90, stdin=subprocess.DEVNULL)
    try:
        yield f"postgresql://arena@{address}:5432/postgres"
    finally:
        subprocess.run([*ctl, "-m", "immediate", "stop"], capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def sql(network: Network, url: str, query: str) -> list[list[str]]:
    """Rows of a query, asked from the coordinator's namespace (the test's own has no route)."""
    psql = [str(_bin_dir() / "psql"), "-X", "-At", "-F", "|", "-c", query, url]
    done = subprocess.run(["ip", "netns", "exec", network.ns("coord"), *psql], capture_output=True, text=True,
                          timeout=30, check=True)
    return [line.split("|") for line in done.stdout.splitlines() if line]


class _Outputs:
    """Each worker's and bot's output in a file of its own, shown when the league hangs."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir()
        self.folder = folder
        self.opened: list[IO[bytes]] = []

    def file(self, name: str) -> IO[bytes]:
        opened = (self.folder / f"{name}.log").open("wb")
        self.opened.append(opened)
        return opened

    def tails(self, chars: int = 2000) -> str:
        for opened in self.opened:
            opened.flush()
        return "".join(f"--- {path.name} (last {chars} characters):\n"
                       f"{path.read_text(errors='replace')[-chars:]}\n"
                       for path in sorted(self.folder.iterdir()))

    def close(self) -> None:
        for opened in self.opened:
            opened.close()


def test_a_league_with_every_part_on_its_own_network_namespace(tmp_path: Path) -> None:
    network = _network_or_skip()
    procs: list[subprocess.Popen[str]] = []
    outputs = _Outputs(tmp_path / "outputs")
    started = time.monotonic()
    try:
        with postgres_in(network) as url:
            league = with_token_files(_without_seed(write_league(tmp_path, BOTS, store=url, hands_per_match=6,
                                                                 tables_at_once=2)))
            certs = make_certs(tmp_path / "peer")
            coordinator = network.run_in(
                "coord", [sys.executable, "-m", "arena.cli", "league", "run", str(league), "--no-worker"],
                cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            procs.append(coordinator)
            assert coordinator.stdout is not None
            first = coordinator.stdout.readline()
            assert "jobs queued" in first, first + coordinator.stdout.read()

            def worker(name: str) -> None:
                procs.append(network.run_in(name, [
                    sys.executable, "-m", "arena.cli", "worker", "--store", url, "--name", name,
                    "--listen", "0.0.0.0:50051", "--tables", "2", "--log-dir", str(tmp_path / name),
                    "--heartbeat-seconds", "0.5", "--exit-when-done", "--peer-cert", str(certs.cert_path),
                    "--peer-key", str(certs.key_path), "--peer-ca", str(certs.ca_path)],
                    cwd=tmp_path, stdout=outputs.file(name), stderr=subprocess.STDOUT))

            worker("w1")
            # Waits for w1's start only (its imports, its first claim): on a loaded machine that
            # took over 30 s once; test_workers.py waits 120 s for the same.
            deadline = time.monotonic() + 120
            while not sql(network, url, "SELECT job_id FROM jobs WHERE worker = 'w1'"):
                assert time.monotonic() < deadline, "w1 claimed no job"
                time.sleep(0.2)
            worker("w2")
            w2 = f"{SUBNET}.{ADDRESSES['w2']}:50051"  # every bot on w2: w1's seats are relayed
            for bot, kind in BOTS:
                procs.append(network.run_in("bots", [
                    sys.executable, "-m", "arena.cli", "bot", kind, "--server", w2, "--token",
                    f"token-{bot}-0001", "--name", bot, "--seed", "1", "--reconnect-seconds", "30"],
                    cwd=ROOT, stdout=outputs.file(bot), stderr=subprocess.STDOUT))
            try:
                output, _ = coordinator.communicate(timeout=90)
            except subprocess.TimeoutExpired as timeout:
                coordinator_output = (timeout.output or b"").decode(errors="replace")[-2000:]
                raise AssertionError(f"the league did not end in 90 s; coordinator:\n{coordinator_output}\n"
                                     + outputs.tails()) from None
            assert coordinator.returncode == 0, output
            jobs = sql(network, url, "SELECT status, worker, address FROM jobs ORDER BY job_id")
            hands = sql(network, url, "SELECT COUNT(*) FROM hands WHERE status = 'completed'")
    finally:
        stop_processes(procs, timeout_seconds=15)
        network.close()
        outputs.close()
    assert len(jobs) == 3 and all(status == "done" for status, _, _ in jobs)
    assert {worker for _, worker, _ in jobs} == {"w1", "w2"}
    # Found without --advertise: each worker's own address on the network, its peer port.
    found = {f"{SUBNET}.{ADDRESSES[w]}:50052" for w in ("w1", "w2")}
    assert {address for _, _, address in jobs} <= found
    assert hands == [[str(3 * 2 * 6)]]
    assert "league secret revealed" in output
    assert time.monotonic() - started < 60
