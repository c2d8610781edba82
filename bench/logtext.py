"""The per-hand log text of a league alone: the event log's records and the PHH text, and a base
revision's (``--base``, main: its PHH writer; ``--json-base``: the last event log of JSON lines,
before 2026-12), in alternated passes on the same hands.

    python -m bench.logtext [--hands 20] [--passes 15] [--base main] [--json-base REVISION]

One league (16 tables, logs on, ``bench/league.py``'s schedule) is played first and each hand
the writer got is kept; then every pass writes those hands' lines and texts by each way in
turn, on this thread alone (no dealer, no GIL hand-over). Prints the median ms per hand of
each way and checks that both PHH writers' texts read back the same and both logs hold one entry
per held event.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

from arena.engine import phhtext
from arena.league.sink import LeagueSink
from arena.match import records
from arena.match.messages import Notice
from arena.match.records import PlayedHand, phh_fields
from arena.server.eventrecord import LogRecords
from arena.storage.eventlog import frame
from bench.league import _config, run_with_store
from bench.scratch import scratch_dir

Held = list[tuple[Notice, list[int], float]]


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # for its dataclasses
    spec.loader.exec_module(module)
    return module


def _base_module(name: str, revision: str, path: str, workdir: Path) -> ModuleType:
    """A module's source at ``revision`` (``git show``), run as Python."""
    source = _source(revision, path)
    file = workdir / f"{name}.py"
    file.write_bytes(source)
    return _load(name, file)


def _source(revision: str, path: str) -> bytes:
    return subprocess.run(["git", "show", f"{revision}:{path}"], check=True, capture_output=True,
                          cwd=Path(__file__).resolve().parents[1]).stdout


def _base_json_log(revision: str, workdir: Path) -> ModuleType:
    """The base's JSON event log writer (``event_lines``), with the typed writers it imports
    (gone since the log holds the wire's records) loaded under their old names."""
    for old in ("eventleaves", "eventtext"):
        file = workdir / f"{old}.py"
        file.write_bytes(_source(revision, f"arena/storage/{old}.py"))
        _load(f"arena.storage.{old}", file)
    return _base_module("base_eventlog", revision, "arena/storage/eventlog.py", workdir)


def _keep_hands(hands: int) -> list[tuple[PlayedHand, Held]]:
    kept: list[tuple[PlayedHand, Held]] = []
    hand_finished = LeagueSink.hand_finished

    def keep(sink: LeagueSink, hand: PlayedHand) -> None:
        kept.append((hand, list(sink.event_log._held)))
        hand_finished(sink, hand)

    config = _config(scratch_dir("arena-bench-logtext-"), hands=hands,
                     tables_at_once=16)
    with mock.patch.object(LeagueSink, "hand_finished", keep):
        run_with_store(config)
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=20, help="hands per match of the league")
    parser.add_argument("--passes", type=int, default=15)
    parser.add_argument("--base", default="main", help="the revision whose PHH writer to compare with")
    parser.add_argument("--json-base", default="20f434b~1",
                        help="the revision whose JSON event log to compare with")
    args = parser.parse_args(argv)
    kept = _keep_hands(args.hands)
    workdir = scratch_dir("arena-bench-logtext-")
    base_log = _base_json_log(args.json_base, workdir)
    base_phh = _base_module("base_phhtext", args.base, "arena/engine/phhtext.py", workdir)

    def phh_by(module: Any) -> Callable[[], list[str]]:
        def texts() -> list[str]:
            with mock.patch.object(records, "hand_fields", module.hand_fields):
                return [module.dumps_hand(phh_fields(hand)) for hand, _ in kept]
        return texts

    def phh_now() -> list[str]:
        return [phhtext.dumps_hand(phh_fields(hand)) for hand, _ in kept]

    ways: dict[str, Callable[[], object]] = {
        "records": lambda: [frame(codec.records(held))
                            for codec in [LogRecords()] for _, held in kept],
        f"JSON {args.json_base}": lambda: [base_log.event_lines(held) for _, held in kept],
        "PHH": phh_now,
        f"PHH {args.base}": phh_by(base_phh),
    }
    names = list(ways)
    count = sum(len(held) for _, held in kept)
    codec = LogRecords()
    assert sum(len(codec.records(held)) for _, held in kept) == count
    assert sum(base_log.event_lines(held).count(b"\n") for _, held in kept) == count
    assert ([tomllib.loads(text) for text in phh_now()]
            == [tomllib.loads(text) for text in phh_by(base_phh)()]), "PHH differs"
    times: dict[str, list[float]] = {name: [] for name in ways}
    for k in range(args.passes):
        for name in names if k % 2 == 0 else names[::-1]:
            started = time.thread_time()
            ways[name]()
            times[name].append((time.thread_time() - started) / len(kept) * 1e3)
    print(f"{len(kept)} hands, {sum(len(h) for _, h in kept) / len(kept):.1f} event lines a hand; "
          f"median of {args.passes} alternated passes, ms per hand:")
    for name in names:
        print(f"  {name:24s} {statistics.median(times[name]):.4f} "
              f"(min {min(times[name]):.4f}, max {max(times[name]):.4f})")
    for name, peer in (("records", f"JSON {args.json_base}"), ("PHH", f"PHH {args.base}")):
        ratio = statistics.median(times[name]) / statistics.median(times[peer])
        print(f"  {name} / {peer}: {ratio:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
