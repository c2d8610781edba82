"""What `arena serve` does, behind the argument parsing of ``arena/cli.py``."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from arena.metrics import ArenaMetrics, start_metrics_server
from arena.server.config import load_config
from arena.storage.matchlog import MatchLogPaths

if TYPE_CHECKING:
    from arena.server.app import ServeResult


def log_connections() -> None:
    """Warnings from everywhere; connects, disconnects, refused streams and waits for bots too,
    each line with its time (stderr)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    for name in ("arena.server", "arena.match"):
        logging.getLogger(name).setLevel(logging.INFO)


def on_listening(out: TextIO, listen: str, before: str, after: str = "") -> Callable[[int], None]:
    """The ``on_ready`` of a dealer that says, once bound, ``BEFORE: listening on HOST:PORT``
    and ``after``, in one flushed line."""
    host = listen.rsplit(":", 1)[0]

    def ready(port: int) -> None:
        out.write(f"{before}: listening on {host}:{port}{after}\n")
        out.flush()

    return ready


@contextmanager
def serving_metrics(metrics: ArenaMetrics | None, port: int | None, out: TextIO, *,
                    addr: str = "127.0.0.1", setting: str = "metrics_port") -> Iterator[None]:
    """``/metrics`` on ``port`` (its URL said on ``out``) while the body runs; nothing when
    there are no metrics or no port."""
    if metrics is None or port is None:
        yield
        return
    server = start_metrics_server(port, metrics.registry, addr, setting=setting)
    out.write(f"metrics: {server.url}\n")
    try:
        yield
    finally:
        server.stop()


def run_serve(config_path: str, *, listen: str | None = None, log_dir: str | None = None,
              out: TextIO = sys.stdout) -> int:
    from arena.server.app import serve  # grpc: only when a dealer serves

    config = load_config(config_path, listen=listen, log_dir=log_dir)
    log_connections()
    tables = ", ".join(f"{m.match_id} ({len(m.seats)} seats, {m.hands} hands)"
                       for m in config.matches)
    ready = on_listening(out, config.listen, "arena", f"; tables: {tables}")
    result = asyncio.run(serve(config, on_ready=ready))
    print_result(result, out, log_dir=config.log_dir)
    return exit_code(result)


def exit_code(result: ServeResult) -> int:
    """3: stopped by a signal (its running hands voided); 1: a match did not play to its end (a
    bot never connected, or its table stopped); 0: every match finished."""
    if result.stopped_early:
        return 3
    return 1 if any(summary.aborted for summary in result.summaries) else 0


def print_result(result: ServeResult, out: TextIO, *, log_dir: Path | None) -> None:
    if result.stopped_early:
        out.write("arena: stopped by signal; running hands were voided\n")
    for summary in result.summaries:
        # An aborted match never reveals its seed (docs/house-rules.md §1), here as in its result file.
        state = (f"aborted ({summary.abort_reason}), seed not revealed" if summary.aborted
                 else f"finished, seed {summary.seed}")
        out.write(f"match {summary.match_id}: {summary.hands_played} hands, {state}\n")
        for r in sorted(summary.results, key=lambda r: -r.net_chips):
            out.write(f"  seat {r.seat} {r.name:<20} {r.net_chips:+8d} chips  "
                      f"{r.mbb_per_hand:+9.1f} ± {r.mbb_per_hand_ci95:.1f} mbb/hand\n")
        stats = summary.stats
        out.write(f"  decisions: {stats.answered} answered, {stats.timeouts} timed out, "
                  f"{stats.absent_actions} absent, {stats.rejected} replies rejected "
                  f"(+{stats.rejected_no_open_decision} to no open decision), "
                  f"{stats.sdk_fallbacks} answered by the bot's SDK fallback\n")
        if log_dir is not None:
            out.write(f"  hand histories: {MatchLogPaths.of(log_dir, summary.match_id).hands}\n")
    out.flush()
