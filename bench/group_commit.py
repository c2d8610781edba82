"""The results store alone: hands committed as a league's writer commits them.

    python -m bench.group_commit [--hands 3000] [--per-batch 2] [--seats 4] [--sqlite]

PostgreSQL: a cluster of its own on loopback (fsync on), one match of ``--seats`` bots held by a
worker (`JobBook`: every write checks its lease); ``--sqlite``: a store file in a scratch folder
(``synchronous=FULL``), no lease, as `arena league run` writes. Hands are written one after
another as the writer's group commit writes them: ``--per-batch`` hands (with each the next
hand's mark in flight) per `batch()`, about what `bench.scale`'s worker commits at once (0.5
commits a hand). Printed (one JSON line): hands/s (each statement waits for the server: the
round trips count) and the store's CPU per hand, the client process's and the PostgreSQL
server's, after a warm-up that is not counted. `bench.ab --scenario pgstore` (or ``sqlstore``)
runs it alternated in two checkouts.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import UTC, datetime, timedelta

WARM_UP_HANDS = 200


def run(hands: int = 3000, per_batch: int = 2, seats: int = 4, *, sqlite: bool = False) -> dict[str, float]:
    from arena.storage.postgres import PostgresStore
    from arena.storage.queue import JobBook, WorkQueue
    from arena.storage.records import HandRecord, SeatResult
    from arena.storage.sqlite import SqliteStore
    from arena.storage.sqlstore import InFlightBook, SqlStore
    from bench.scale import _server_cpu
    from bench.scratch import scratch_dir
    from tests.pgserver import postgres_server

    bots = [f"bot{k}" for k in range(seats)]
    nets = [10 * (seats - 1)] + [-10] * (seats - 1)
    started = datetime(2026, 1, 1, tzinfo=UTC)
    with postgres_server(fsync=True) as server:
        store: SqlStore = SqliteStore(scratch_dir("arena-bench-commit-") / "league.sqlite") if sqlite \
            else PostgresStore(server.new_database())
        for name in bots:
            store.register_bot(name, f"token-{name}")
        league = store.create_league("bench", "")
        match_id = store.create_match(league.league_id, seat_bots=bots, games=("FT",)).match_id
        book = InFlightBook(store)
        if not sqlite:
            queue = WorkQueue(store)
            queue.enqueue(league.league_id, [("d1", match_id)])
            queue.claim("w1", lease_seconds=600)
            book = JobBook(queue, "w1")
        guard = book.guard(match_id)

        def hand(number: int) -> HandRecord:
            return HandRecord(
                match_id=match_id, hand_number=number, copy_index=0, deal_id=f"deal-{number}",
                game_code="FT", small_bet_chips=20, button_seat=seats - 1,
                seats=tuple(SeatResult(k, b, n, 2000 + n)
                            for k, (b, n) in enumerate(zip(bots, nets, strict=True))),
                phh_text=f'variant = "FT"\n_hand = {number}\n' + "actions = []\n" * 20,
                started_at=started + timedelta(seconds=number),
                finished_at=started + timedelta(seconds=number + 1))

        def write(first: int, last: int) -> None:
            for at in range(first, last, per_batch):
                with store.batch():
                    for number in range(at, min(at + per_batch, last)):
                        store.record_hand(hand(number), guard=guard)
                        book.hand_started(match_id, 0, number + 1)

        write(1, 1 + WARM_UP_HANDS)
        cpu, db_cpu, wall = time.process_time(), _server_cpu(server), time.perf_counter()
        write(1 + WARM_UP_HANDS, 1 + WARM_UP_HANDS + hands)
        cpu, db_cpu = time.process_time() - cpu, _server_cpu(server) - db_cpu
        wall = time.perf_counter() - wall
        assert len(store.completed_hands(match_id)) == WARM_UP_HANDS + hands
        store.close()
    us = 1e6 / hands
    figures = {"hands_per_second": hands / wall, "store_cpu_us_per_hand": (cpu + db_cpu) * us}
    return figures if sqlite else {**figures, "client_cpu_us_per_hand": cpu * us,
                                   "server_cpu_us_per_hand": db_cpu * us}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--per-batch", type=int, default=2)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--sqlite", action="store_true", help="an SQLite store file instead")
    args = parser.parse_args(argv)
    print(json.dumps(run(args.hands, args.per_batch, args.seats, sqlite=args.sqlite)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
