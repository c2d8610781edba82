"""The replayer's cost per hand with equity, per game, beside seven-card stud in the same run.

Simulated 6-seat hands (calling policy for the stud games so that hands go far; random for the
draw games so that cards are exchanged) are turned into replayer steps with equity at every
decision (`arena.web.frames.hand_steps`, the JSON of ``/api/hand/...``), each hand once (a cold
hand, as a spectator opening it: no two hands share their cards, so no equity comes cached). Prints the CPU
seconds per hand (median and worst) and the ratio of each game's median to stud's.

    python -m bench.replayer_equity [--hands 20] [--players 6] [--games F7S,F2L3D,F7SW,FLH,FES]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from arena.engine.phh import PhhHand, loads
from arena.match.simulate import simulate
from arena.web.frames import hand_steps

_DRAW_GAMES = ("F2L3D", "FES")


def hands_of(game: str, players: int, count: int, seed: int) -> list[PhhHand]:
    with tempfile.TemporaryDirectory(prefix="arena-bench-replayer-") as tmp:
        simulate(game=game, players=players, hands=count, seed=seed, out_dir=tmp,
                 policy="random" if game in _DRAW_GAMES else "call")
        return loads((Path(tmp) / "hands.phhs").read_text(encoding="utf-8"))


def seconds_per_hand(hands: list[PhhHand]) -> list[float]:
    out = []
    for hand in hands:
        started = time.process_time()
        hand_steps(hand, reveal=True)
        out.append(time.process_time() - started)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--games", default="F7S,F2L3D,F7SW,FLH,FES")
    args = parser.parse_args()
    medians: dict[str, float] = {}
    for game in args.games.split(","):
        players = min(args.players, 6) if game in _DRAW_GAMES else args.players
        times = seconds_per_hand(hands_of(game, players, args.hands, args.seed))
        medians[game] = statistics.median(times)
        print(f"{game:6} {players} seats: {medians[game] * 1000:7.1f} ms/hand median, "
              f"{max(times) * 1000:7.1f} ms worst ({len(times)} hands)", flush=True)
    if "F7S" in medians:
        for game, median in medians.items():
            print(f"{game:6} / F7S = {median / medians['F7S']:.2f}")


if __name__ == "__main__":
    main()
