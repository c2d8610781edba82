"""What `arena league run|status` and `arena leaderboard` do, behind the argument parsing."""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, TextIO

from arena.engine.errors import ConfigError
from arena.league.config import LeagueConfig, _store_location, load_league
from arena.league.coordinator import describe_waits
from arena.league.leaderboard import CsvTable
from arena.league.runner import LeagueRun
from arena.match.spectator import Spectator
from arena.server.commands import log_connections, on_listening, serving_metrics
from arena.server.peer_tls import PEER_SERVER_NAME, PeerTls, check_key_file
from arena.storage.queue import JobWaits
from arena.storage.records import LeftOutHand
from arena.storage.store import is_postgres_url, shown_location


class WebHook(Protocol):
    """A web app served on the dealer's loop while the league plays (``arena.web``)."""

    @property
    def url(self) -> str: ...

    @property
    def spectator(self) -> Spectator | None: ...

    def serve(self) -> Coroutine[Any, Any, None]: ...


def _load(path: str, store: str | None) -> LeagueConfig:
    config = load_league(path)
    return config if store is None else dataclasses.replace(config, store=_store_location(store, Path()))


@contextlib.contextmanager
def _stored_run(path: str, store: str | None, out: TextIO) -> Iterator[LeagueRun]:
    """A league to read: its SQLite store must exist (a mistyped path or a league never run is
    an error, not an empty store made there)."""
    config = _load(path, store)
    if isinstance(config.store, Path) and not config.store.is_file():
        raise ConfigError(f"league {config.name!r}: no results store at {config.store} (run it "
                          f"first: arena league run {path}; or give its --store)")
    run = LeagueRun(config, out=out)
    try:
        yield run
    finally:
        run.close()


@dataclasses.dataclass(frozen=True, slots=True)
class PeerOptions:
    """``--peer-cert``, ``--peer-key``, ``--peer-ca`` (all or none), ``--peer-listen``, ``--peer-name``."""

    cert: str | None = None
    key: str | None = None
    ca: str | None = None
    listen: str = "0.0.0.0:50052"
    name: str = PEER_SERVER_NAME

    def tls(self) -> PeerTls | None:
        """The checked settings (every file read once now, so that a bad one stops the start)."""
        given = [value is not None for value in (self.cert, self.key, self.ca)]
        if not any(given):
            return None
        if not all(given) or self.cert is None or self.key is None or self.ca is None:
            raise ConfigError("give --peer-cert, --peer-key and --peer-ca together (mutual TLS between "
                              "workers), or none of them")
        tls = PeerTls(Path(self.cert), Path(self.key), Path(self.ca), server_name=self.name)
        tls.load()
        return tls


def run_league(path: str, *, listen: str | None = None, store: str | None = None, local_worker: bool = True,
               out: TextIO = sys.stdout, web: Callable[[LeagueConfig], WebHook] | None = None,
               peer: PeerOptions = PeerOptions()) -> int:
    config = _load(path, store)
    if listen is not None:
        config = dataclasses.replace(config, listen=listen)
    log_connections()
    hook = web(config) if web is not None else None
    run = LeagueRun(config, out=out)
    try:
        if is_postgres_url(config.store):
            complete = _run_on_workers(run, local_worker=local_worker, out=out, peer=peer)
            return _finish(run, complete, out)
        if hook is not None:
            out.write(f"web: {hook.url}\n")
            out.flush()
        ready = on_listening(out, config.listen, f"league {config.name!r}",
                             f"; {len(run.schedule)} matches of {config.hands_per_match} hands, "
                             f"{config.tables_at_once} tables at once")
        complete = run.run(on_ready=ready, spectator=hook.spectator if hook else None,
                           background=hook.serve if hook else None)
        return _finish(run, complete, out)
    finally:
        run.close()


def _finish(run: LeagueRun, complete: bool, out: TextIO) -> int:
    """The leaderboard, its files, and where everything is."""
    config = run.config
    report = run.report(run.leaderboard())
    out.write("\n" + report.text())
    for written in run.write_leaderboard_files(report):
        out.write(f"wrote {written}\n")
    out.write(f"hand logs: {config.log_dir}/*.phhs (verify with: arena replay FILE)\n")
    out.write(f"results store: {shown_location(config.store)}\n")
    for forfeit in run.forfeited:
        out.write(f"forfeited (bots absent at the start timeout): {forfeit}\n")
    if not complete:
        out.write("league interrupted: run the same command again to resume\n")
    return 0 if complete else 3


def _run_on_workers(run: LeagueRun, *, local_worker: bool, out: TextIO, peer: PeerOptions) -> bool:
    from arena.league.coordinator import run_on_workers
    from arena.league.worker import default_worker_name

    with serving_metrics(run.metrics, run.config.metrics_port, out):
        return run_on_workers(run, out=out, local_worker=default_worker_name() if local_worker else None,
                              peer_tls=peer.tls() if local_worker else None, peer_listen=peer.listen)


def run_worker(store_url: str, *, name: str | None, listen: str, advertise: str | None, tables: int,
               tls: tuple[str | None, str | None] = (None, None), log_dir: str, metrics_port: int | None,
               metrics_addr: str, lease_seconds: float, heartbeat_seconds: float, exit_when_done: bool,
               peer: PeerOptions = PeerOptions(), out: TextIO = sys.stdout) -> int:
    """`arena worker`: play jobs of the PostgreSQL work queue until stopped."""
    from arena.league.worker import Worker, WorkerSettings, default_worker_name
    from arena.metrics import ArenaMetrics
    from arena.server.config import TlsConfig
    from arena.storage.postgres import open_when_up
    from arena.storage.queue import WorkQueue

    if not is_postgres_url(store_url):
        out.write("arena worker: --store (or $ARENA_STORE) must be a postgresql:// URL: workers share "
                  "one database\n")
        return 2
    log_connections()
    cert, key = tls
    if (cert is None) != (key is None):
        out.write("arena worker: give both --tls-cert and --tls-key, or neither\n")
        return 2
    if key is not None:
        check_key_file(Path(key), "--tls-key")
    settings = WorkerSettings(name=name or default_worker_name(), listen=listen, advertise=advertise,
                              peer_tls=peer.tls(), peer_listen=peer.listen,
                              tables=tables, log_dir=Path(log_dir),
                              tls=None if cert is None or key is None else TlsConfig(Path(cert), Path(key)),
                              lease_seconds=lease_seconds, heartbeat_seconds=heartbeat_seconds,
                              exit_when_done=exit_when_done)
    # Every transaction, statement and silent connection of the worker is bounded below its
    # lease: a worker paused inside a commit holds its job's row no longer than that.
    store = open_when_up(store_url, say=lambda text: print(f"worker {settings.name}: {text}", file=out,
                                                           flush=True),
                         bound_seconds=min(lease_seconds / 2, 3600.0), role=f"worker {settings.name}")
    metrics = ArenaMetrics()
    metrics.set_worker(settings.name)
    queue = WorkQueue(store)
    metrics.watch_queue(queue.depth)
    try:
        with serving_metrics(metrics, metrics_port, out, addr=metrics_addr, setting="--metrics-port"):
            out.write(f"worker {settings.name}: waiting for jobs at {shown_location(store_url)}\n")
            out.flush()
            ready = on_listening(out, listen, f"worker {settings.name}")
            complete = Worker(store, settings, out=out, metrics=metrics).run(on_ready=ready)
    finally:
        store.close()
    return 0 if complete else 3


def league_status(path: str, *, store: str | None = None, out: TextIO = sys.stdout) -> int:
    with _stored_run(path, store, out) as run:
        standing = run.standing()  # read only: the league may be running now
        out.write(f"league {run.config.name!r}: {standing.done_hands} of {standing.total_hands} "
                  f"hands played, {standing.void_hands} void (misdeals: every chip went back; not "
                  f"counted){_left_out_count(run.left_out())}; {standing.copies_left} of "
                  f"{len(run.schedule)} matches still to play\n")
        out.write(run.report(run.leaderboard()).text())
        waits = _waits(run)
        if waits:
            out.write(waits + "\n")
        return 0


def _left_out_count(left_out: Sequence[LeftOutHand]) -> str:
    """The status line's note of the played hands the leaderboard does not score."""
    if not left_out:
        return ""
    return (f", {len(left_out)} played but left out of the leaderboard (other copies of voided "
            "deals: listed below)")


def _waits(run: LeagueRun) -> str:
    """The bots that matches postponed by workers wait for (a league run by workers:
    ``absent = "wait"``), as the coordinator's progress shows them; "" when none waits."""
    league = run.store.find_league(run.config.name)
    return "" if league is None else describe_waits(JobWaits(run.store).waiting(league.league_id))


def show_leaderboard(path: str, *, fmt: str, table: CsvTable | Literal["faults"] = "results",
                     store: str | None = None, out: TextIO = sys.stdout) -> int:
    with _stored_run(path, store, out) as run:
        report = run.report(run.leaderboard())
        out.write(report.json() + "\n" if fmt == "json" else report.csv(table) if fmt == "csv"
                  else report.text())
        return 0
