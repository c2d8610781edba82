"""A brute-force search for a league's seed from one seat's cards, as a bot would run it: each
candidate league seed is turned into the decks of the first hands (HMAC-SHA-256 deal-set seed,
BLAKE2b hand seed, the Mersenne Twister Fisher-Yates shuffle of ``arena.engine.cards.Deck``) and
only the seat's first draws are compared. Standard library only, so that workers start quickly."""

from __future__ import annotations

import _random
import concurrent.futures
import hashlib
import hmac
import multiprocessing
import os
from collections.abc import Mapping, Sequence

DECK_SIZE = 52
# What one seat saw: per hand (from the first), the draw positions of its cards and the cards
# (as indices into a fresh deck). Two hole cards are about 11 bits: three hands tell a seed
# among 2**24 candidates apart (about 1 false match in 1,000 searches).
Target = tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]


def first_draws(rng: _random.Random, count: int) -> list[int]:
    """The first ``count`` cards of a fresh deck shuffled lazily as ``arena.engine.cards.Deck``."""
    swapped: dict[int, int] = {}
    out: list[int] = []
    for i in range(count):
        pick = i + int(rng.random() * (DECK_SIZE - i))
        out.append(swapped.get(pick, pick))
        swapped[pick] = swapped.get(i, i)
    return out


def hand_seed(league_seed: int, deal_set: str, hand_index: int) -> int:
    """The seed of hand ``hand_index`` (from 0) of a deal set, from the league's seed."""
    digest = hmac.digest(b"%d" % league_seed, f"deal-set/{deal_set}".encode(), "sha256")
    material = f"{int.from_bytes(digest, 'big')}/hand/{hand_index}".encode()
    return int.from_bytes(hashlib.blake2b(material, digest_size=8).digest(), "big")


def _deals(rng: _random.Random, seed: int, positions: tuple[int, ...],
           cards: tuple[int, ...]) -> bool:
    rng.seed(seed)
    draws = first_draws(rng, max(positions) + 1)
    return all(draws[p] == c for p, c in zip(positions, cards, strict=True))


def search(deal_set: str, targets: Mapping[str, Target], start: int,
           stop: int) -> dict[str, list[int]]:
    """Every candidate league seed in ``range(start, stop)`` that deals each target's cards."""
    key = f"deal-set/{deal_set}".encode()
    digest = hmac.digest
    blake2b = hashlib.blake2b
    from_bytes = int.from_bytes
    rng = _random.Random()
    found: dict[str, list[int]] = {name: [] for name in targets}
    depth = max(max(t[0][0]) for t in targets.values()) + 1
    for candidate in range(start, stop):
        match_seed = from_bytes(digest(b"%d" % candidate, key, "sha256"), "big")
        rng.seed(from_bytes(blake2b(b"%d/hand/0" % match_seed, digest_size=8).digest(), "big"))
        draws = first_draws(rng, depth)  # the first hand: the one cost every candidate pays
        for name, hands in targets.items():
            positions, cards = hands[0]
            if any(draws[p] != c for p, c in zip(positions, cards, strict=True)):
                continue
            if all(_deals(rng, from_bytes(blake2b(b"%d/hand/%d" % (match_seed, k),
                                                  digest_size=8).digest(), "big"), *hand)
                   for k, hand in enumerate(hands[1:], start=1)):
                found[name].append(candidate)
    return found


def parallel_search(deal_set: str, targets: Mapping[str, Target], candidates: int,
                    workers: int | None = None) -> dict[str, list[int]]:
    """:func:`search` over ``range(candidates)`` split among worker processes (one per core)."""
    workers = workers or os.cpu_count() or 1
    step = -(-candidates // (workers * 4))
    spans: Sequence[tuple[int, int]] = [(k, min(candidates, k + step))
                                        for k in range(0, candidates, step)]
    found: dict[str, list[int]] = {name: [] for name in targets}
    context = multiprocessing.get_context("spawn")  # never fork a process running gRPC threads
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = [pool.submit(search, deal_set, targets, a, b) for a, b in spans]
        for future in futures:
            for name, seeds in future.result().items():
                found[name] += seeds
    return found
