"""The dealer's thread's instructions per hand in a league, store and logs on and off, and the
writer process's (on), counted by valgrind's callgrind (deterministic: what a noisy shared
machine cannot blur).

    python -m bench.league_instructions [--modes on,off] [--hands 8 40]

Each mode runs `bench.league`'s league (16 tables, 8 calling bots as processes, not under
valgrind) twice under callgrind, at two match lengths; the difference of the dealer's main
thread's instruction counts over the difference of the hands played is the count per hand,
start-up and match ends left out; the same for the writer process (store and logs on: its
commits, log files and answers). On this 2-core machine the bots and the dealer keep both
cores busy, so the store and logs cost the league what they cost in every process: the
dealer's thread and the writer's count together (the kernel's work, such as the commits'
fsync, is not counted). Compare runs at the same ``--hands``: the games rotate, so
the mix of games (and the instructions a hand) differs with the matches' length. Needs
``valgrind`` (Debian package). A run takes a few minutes: the dealer runs ~50x slower under
callgrind (its bots wait for it).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path


def one(mode: str, hands: int) -> None:
    """(Under valgrind) one league; prints the hands played."""
    from unittest import mock

    import bench.league as league
    from arena.storage.sqlstore import SqlStore
    from bench.scratch import scratch_dir

    def seat_rows(store: SqlStore, league_id: int) -> range:
        """What `run_with_store` counts the hands by (4 rows a hand), read by one count: the
        results themselves cost ~0.3M instructions a hand (after the league, outside the play)."""
        with store.transaction(write=False) as db:
            (rows,) = db.execute("SELECT COUNT(*) FROM hand_seats").fetchone()
        return range(int(rows))

    config = league._config(scratch_dir("arena-bench-instr-"), hands=hands, tables_at_once=16)
    with mock.patch.object(SqlStore, "iter_results", seat_rows):
        played, _ = (league.run_with_store(config) if mode == "on"
                     else league.run_without_store(config))
    print(f"played {played}")


def _summary(path: Path) -> int:
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise RuntimeError(f"no summary in {path}")


def instructions(mode: str, hands: int, out_dir: Path) -> tuple[int, int, int]:
    """The dealer's main thread's instruction count, the writer process's (0: none) and the
    hands played of one run under callgrind (the bots are not traced)."""
    prefix = out_dir / f"{mode}-{hands}"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--separate-threads=yes", "--trace-children=yes",
         "--trace-children-skip-by-arg=*arena.cli*", f"--callgrind-out-file={prefix}.%p",
         sys.executable, "-c", f"import bench.league_instructions as b; b.one({mode!r}, {hands})"],
        capture_output=True, text=True, check=True)
    played = int(done.stdout.split("played ")[-1].split()[0])
    dealer = writer = 0
    for path in out_dir.glob(f"{prefix.name}.*-*"):  # a file per thread of each process
        command = _command(path)
        if "league_instructions" in command and path.name.endswith("-01"):
            dealer = _summary(path)  # the dealer's main thread (not a helper it ran, ldconfig)
        elif "league_instructions" in command:
            writer += _summary(path)  # its other threads: the writer's, mostly
    return dealer, writer, played


def _command(path: Path) -> str:
    """The command line a callgrind file names."""
    with path.open(errors="replace") as lines:
        for line in lines:
            if line.startswith("cmd:"):
                return line
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--modes", default="on,off")
    parser.add_argument("--hands", type=int, nargs=2, default=(8, 40))
    args = parser.parse_args(argv)
    per_hand: dict[str, float] = {}
    writer_per_hand = 0.0
    with tempfile.TemporaryDirectory(prefix="arena-callgrind-") as tmp:
        for mode in args.modes.split(","):
            (low, low_writer, low_played), (high, high_writer, high_played) = (
                instructions(mode, hands, Path(tmp)) for hands in args.hands)
            per_hand[mode] = (high - low) / (high_played - low_played)
            print(f"store and logs {mode}: {per_hand[mode]:,.0f} instructions a hand on the "
                  f"dealer's thread ({low_played} and {high_played} hands)")
            if high_writer:
                writer_per_hand = (high_writer - low_writer) / (high_played - low_played)
                print(f"store and logs {mode}: {writer_per_hand:,.0f} instructions a hand in the "
                      f"writer process (its start-up left out)")
    if "on" in per_hand and "off" in per_hand:
        on, off = per_hand["on"], per_hand["off"]
        print(f"store and logs cost {on - off:,.0f} instructions a hand on the dealer's thread "
              f"(+{on / off - 1:.0%}); the ratio of the counts, off / on: {off / on:.0%}")
        print(f"with the writer process's: {on + writer_per_hand - off:,.0f} instructions a hand "
              f"(+{(on + writer_per_hand) / off - 1:.0%}); off / on: "
              f"{off / (on + writer_per_hand):.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
