"""`make demo`: a short H.O.R.S.E. session of built-in bots, printed as it happened."""

from __future__ import annotations

import sys
import tempfile

from arena.engine.phh import iter_replays, load_file
from arena.engine.rules import Rules
from arena.match.simulate import simulate
from arena.storage.replay import describe, replay_paths


def main() -> int:
    out_dir = tempfile.mkdtemp(prefix="arena-demo-")
    players = 4
    hands = 5 * players * 2  # two orbits of each game
    print(f"H.O.R.S.E. session: {players} random bots, {hands} hands, seed 2026 (in-process)\n")
    summary = simulate(game="horse", players=players, hands=hands, seed=2026, out_dir=out_dir,
                       policy="random", rules=Rules())
    path = f"{out_dir}/hands.phhs"
    first = load_file(path)[:1]
    for hand, state, _ in iter_replays(first):
        assert state is not None
        print(f"first hand ({hand.fields['variant']}):")
        for line in describe(state, hand.fields.get("players", [])):
            print(line)
    print(f"\nplayed {summary.hands} hands: "
          + ", ".join(f"{g} {n}" for g, n in summary.hands_by_game.items()))
    print("net chips:")
    for seat, net in sorted(enumerate(summary.net_chips), key=lambda x: -x[1]):
        print(f"  bot{seat}: {net:+d}")
    print(f"\nhand histories: {path}\nverifying them with the replayer:")
    return _verify(path)


def _verify(path: str) -> int:
    import io

    buffer = io.StringIO()
    code = replay_paths([path], rules=Rules(), show=False, hand_id=None, out=buffer)
    print(buffer.getvalue().splitlines()[-1])
    return code


if __name__ == "__main__":
    sys.exit(main())
