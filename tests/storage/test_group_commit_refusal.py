"""A refused write in the writer's group commit (its savepoint rolled back) leaves the batch's other
writes standing, including those whose statements were prepared by an earlier batch: the
rollback once made every prepared statement go, and the batch failed with
``prepared statement "arena_2" does not exist`` (issue 38)."""

from __future__ import annotations

import pytest

from arena.storage.errors import InvalidRecord
from arena.storage.queue import JobBook
from tests.pgserver import PostgresServer
from tests.storage.test_queue import queue_with_jobs

_MARK = "INSERT INTO hands_in_flight (match_id, copy_index, hand_number) VALUES (?, ?, ?)"


def test_a_refused_write_does_not_fail_the_marks_around_it(postgres: PostgresServer) -> None:
    queue, _ = queue_with_jobs(postgres.new_database(), 2)
    mine, other = queue.claim("w1", lease_seconds=60, limit=2)
    book, store = JobBook(queue, "w1"), queue.store
    with store.batch():  # prepares the statements of a mark and its lease check
        book.hand_started(mine.match_id, 0, 1)
    for hand in (2, 3):  # each batch: a mark (an EXECUTE only), a refusal, a mark again
        with store.batch():
            book.hand_started(mine.match_id, 0, hand)
            with pytest.raises(InvalidRecord), store.transaction(write=True) as db:
                db.execute(_MARK, (other.match_id, 9, hand))
                db.execute(_MARK, (other.match_id, 9, hand))  # a duplicate key: the savepoint rolls back
            book.hand_started(mine.match_id, 1, hand)
        assert queue.store.hand_in_flight(mine.match_id, 0) == hand
        assert queue.store.hand_in_flight(mine.match_id, 1) == hand
        assert queue.store.hand_in_flight(other.match_id, 9) is None
