"""Throughput of issue 42's games and table sizes, ours against PokerKit 0.7.7 in one run: 2-7
triple draw (F2L3D, 6 players), full-ring hold'em (FT, 10 and 11 players) and Omaha hi-lo
(FO/8, 10 players); the games PokerKit does not have (London Lowball FLL, stud with wild cards
F7SW, F7SWL and F7SW/8, Low Hole FLH and FLH/8, English Stud FES) against our own seven-card
stud (F7S) at the same table, with seven-card stud itself against PokerKit's for scale. Every
seat checks or calls and stands pat, or (policy ``draw``) exchanges 0 to 3 random cards in
each draw (English Stud: at most the one card allowed). Both engines' bots draw the same
random numbers the same way; PokerKit runs with all its automations (dealing, showdown, chip
pushing), as in ``bench.engine``.

    python -m bench.new_games [--seconds 2.0] [--rounds 3]

Time is this process's CPU time; each cell warms both sides up, then alternates them for
``--rounds`` rounds and keeps each one's best round, as ``bench.engine`` does. Our evaluators'
tables are filled first (``fill_tables`` of ``evaluate``, ``lowball`` and ``wild``, about 15 s
in all), as in a dealer that has played a while: the cells measure the steady state.
"""

from __future__ import annotations

import argparse
import random
import time
import warnings
from collections.abc import Callable

from arena.engine.actions import ActionKind
from arena.engine.evaluate import fill_tables
from arena.engine.games import variant_for
from arena.engine.lowball import fill_tables as fill_lowball_tables
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.engine.wild import fill_tables as fill_wild_tables
from bench.engine import _pokerkit_game

RULES = Rules()


def ours(game: str, players: int, policy: str, seconds: float) -> float:
    variant = variant_for(game)
    stacks = [RULES.starting_stack] * players
    rng = random.Random(1)
    hands = 0
    started = time.process_time()
    deadline = started + seconds
    while time.process_time() < deadline or hands == 0:
        state = HandState(variant, stacks, rules=RULES, seed=hands)
        while not state.is_over:
            legal = state.legal_actions()
            seat = legal.seat
            if legal.can_exchange:
                count = min(int(rng.random() * 4), legal.exchange_max_cards) \
                    if policy == "draw" else 0
                state.exchange(seat, rng.sample(legal.exchangeable, count) if count else ())
            elif legal.bring_in_to_chips is not None:
                state.act(seat, ActionKind.BRING_IN)
            else:
                state.check_or_call()
        hands += 1
    return hands / (time.process_time() - started)


def _pokerkit_factory(game: str) -> Callable[..., object]:
    import pokerkit as pk

    if game == "F2L3D":
        return pk.FixedLimitDeuceToSevenLowballTripleDraw(  # type: ignore[no-any-return]
            tuple(pk.Automation), False, 0, (10, 20), 20, 40, mode=pk.Mode.CASH_GAME)
    return _pokerkit_game(game)


def theirs(game: str, players: int, policy: str, seconds: float) -> float:
    g = _pokerkit_factory(game)
    rng = random.Random(1)
    hands = 0
    started = time.process_time()
    deadline = started + seconds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while time.process_time() < deadline or hands == 0:
            state = g([RULES.starting_stack] * players, players)
            while state.status:  # type: ignore[attr-defined]
                if state.can_stand_pat_or_discard():  # type: ignore[attr-defined]
                    index = state.stand_patter_or_discarder_index  # type: ignore[attr-defined]
                    hole = state.hole_cards[index]  # type: ignore[attr-defined]
                    count = int(rng.random() * 4) if policy == "draw" else 0
                    state.stand_pat_or_discard(rng.sample(hole, count))  # type: ignore[attr-defined]
                elif state.can_post_bring_in():  # type: ignore[attr-defined]
                    state.post_bring_in()  # type: ignore[attr-defined]
                else:
                    state.check_or_call()  # type: ignore[attr-defined]
            hands += 1
    return hands / (time.process_time() - started)


CELLS = (("F2L3D", 6, "call", "F2L3D"), ("F2L3D", 6, "draw", "F2L3D"), ("FT", 10, "call", "FT"),
         ("FT", 11, "call", "FT"), ("FO/8", 10, "call", "FO/8"), ("F7S", 6, "call", "F7S"),
         ("FLL", 6, "call", "ours F7S"), ("F7SW", 6, "call", "ours F7S"),
         ("F7SWL", 6, "call", "ours F7S"), ("F7SW/8", 6, "call", "ours F7S"),
         ("FLH", 6, "call", "ours F7S"), ("FLH/8", 6, "call", "ours F7S"),
         ("FES", 6, "call", "ours F7S"), ("FES", 6, "draw", "ours F7S"))
WARM_UP_SECONDS = 0.2


def _peer_rate(ours_peer: bool, game: str, players: int, policy: str, seconds: float) -> float:
    if ours_peer:
        return ours(game, players, "call", seconds)
    return theirs(game, players, policy, seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    fill_tables()
    fill_lowball_tables()
    fill_wild_tables()
    print("| game | players | policy | ours hands/s | ours µs/hand | peer | peer hands/s | "
          "peer µs/hand | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for game, players, policy, peer in CELLS:
        share = args.seconds / args.rounds
        # The peer: PokerKit's own game, or our seven-card stud at the same table with the
        # calling bots (it has no exchanges: the "draw" bots call and stand pat there).
        ours_peer = peer.startswith("ours ")
        peer_game = peer.removeprefix("ours ")
        ours(game, players, policy, WARM_UP_SECONDS)  # first uses of lazily filled tables
        _peer_rate(ours_peer, peer_game, players, policy, WARM_UP_SECONDS)
        peer_rate = our_rate = 0.0
        for _ in range(args.rounds):
            our_rate = max(our_rate, ours(game, players, policy, share))
            peer_rate = max(peer_rate, _peer_rate(ours_peer, peer_game, players, policy, share))
        who = peer if ours_peer else f"PokerKit {peer}"
        print(f"| {game} | {players} | {policy} | {our_rate:,.0f} | {1e6 / our_rate:,.0f} | {who} | "
              f"{peer_rate:,.1f} | {1e6 / peer_rate:,.0f} | {our_rate / peer_rate:.2f}x |",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
