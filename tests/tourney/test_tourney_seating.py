"""Tournament seating (docs/house-rules.md §8): the draw, the big blind, balancing and breaking tables.

Invariants, property-tested on the pure balancing logic: tables stay within one player of each
other, no player is seated twice or lost, and a move never lets a player skip the big blind
(the mover is the one due it at the old table and is due it first at the new one).
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.tourney.seating import Table, balance, draw_tables, seat_table, table_count


def _names(n: int) -> list[str]:
    return [f"p{k}" for k in range(n)]


def test_the_draw_spreads_players_by_lot_within_one_seat() -> None:
    tables = draw_tables(_names(27), tables=4, seed=5)
    assert sorted(len(t.players) for t in tables) == [6, 7, 7, 7]
    assert sorted(p for t in tables for p in t.players) == sorted(_names(27))
    assert draw_tables(_names(27), tables=4, seed=5) == tables
    assert draw_tables(_names(27), tables=4, seed=6) != tables


def test_positions_follow_the_big_blind() -> None:
    table = Table(1, ("a", "b", "c", "d"), "c")
    assert table.button == "a" and table.hand_order() == ("b", "c", "d", "a")
    heads_up = Table(1, ("a", "b"), "b")  # docs/house-rules.md §2: heads-up the button posts the small blind
    assert heads_up.button == "a" and heads_up.hand_order() == ("b", "a")


def test_the_big_blind_moves_forward_past_busted_players() -> None:
    table = Table(1, ("a", "b", "c", "d", "e"), "b")
    assert table.after_hand(()).big_blind == "c"
    nxt = table.after_hand(("b", "c"))
    assert nxt.players == ("a", "d", "e") and nxt.big_blind == "d"


def test_an_arrival_is_the_next_big_blind_and_delays_nobody_past_their_turn() -> None:
    table = Table(2, ("a", "b", "c"), "b").with_arrival("x")
    assert table.players == ("a", "x", "b", "c") and table.big_blind == "x"
    assert table.after_hand(()).big_blind == "b"


@st.composite
def _tables(draw: st.DrawFn) -> tuple[list[Table], int]:
    max_seats = draw(st.integers(2, 9))
    sizes = draw(st.lists(st.integers(1, max_seats), min_size=1, max_size=8))
    tables, k = [], 0
    for number, size in enumerate(sizes, 1):
        players = tuple(f"p{k + j}" for j in range(size))
        k += size
        big_blind = players[draw(st.integers(0, size - 1))]
        tables.append(Table(number, players, big_blind))
    return tables, max_seats


@settings(max_examples=400, deadline=None)
@given(_tables())
def test_balancing_invariants(case: tuple[list[Table], int]) -> None:
    tables, max_seats = case
    before = {t.number: t for t in tables}
    everyone = sorted(p for t in tables for p in t.players)
    after, moves = balance(tables, max_seats=max_seats)
    seated = [p for t in after for p in t.players]
    assert sorted(seated) == everyone and len(set(seated)) == len(seated)
    sizes = [len(t.players) for t in after]
    assert max(sizes) - min(sizes) <= 1
    assert max(sizes) <= max_seats
    assert len(after) == table_count(len(everyone), max_seats)
    by_number = {t.number: t for t in after}
    moved = Counter(m.player for m in moves)
    for move in moves:
        # A balancing move takes the player due the big blind at the source.
        if move.reason == "balance":
            assert move.from_table in by_number
    # Replay the moves one by one: each balancing mover is the source's next big blind and
    # becomes the destination's next big blind; nobody else's turn is skipped.
    current = dict(before)
    for move in moves:
        source = current[move.from_table]
        if move.reason == "balance":
            assert source.big_blind == move.player
            current[move.from_table] = source.without(move.player)
        else:
            current[move.from_table] = source.without(move.player)
        dest = current[move.to_table]
        due = dest.big_blind
        current[move.to_table] = dest.with_arrival(move.player)
        assert current[move.to_table].big_blind == move.player
        assert current[move.to_table].after_hand(()).big_blind == due
    for number, table in by_number.items():
        assert current[number] == table
    assert all(count == 1 for count in moved.values()) or any(
        m.reason == "break" for m in moves), "only a broken table's player may move twice"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.large_base_example])
@given(st.integers(2, 60), st.integers(3, 9), st.integers(0, 2**32), st.data())
def test_busting_players_keeps_every_table_playable(players: int, max_seats: int, seed: int,
                                                    data: st.DataObject) -> None:
    names = _names(players)
    tables = list(draw_tables(names, tables=table_count(players, max_seats), seed=seed))
    alive = set(names)
    while len(alive) > 1:
        table = tables[data.draw(st.integers(0, len(tables) - 1))]
        assert len(table.players) >= 2  # with 3 or more seats a table never holds one player
        out = data.draw(st.lists(st.sampled_from(table.players), min_size=1,
                                 max_size=len(table.players) - 1,
                                 unique=True))
        alive -= set(out)
        tables[tables.index(table)] = table.after_hand(out)
        tables, _ = map(list, balance(tables, max_seats=max_seats))  # type: ignore[assignment]
        sizes = [len(t.players) for t in tables]
        assert sum(sizes) == len(alive) and max(sizes) - min(sizes) <= 1
        assert all(s >= 2 for s in sizes) or len(alive) == 1
        assert len(tables) == table_count(len(alive), max_seats)


def test_seat_table_draws_the_button_by_card() -> None:
    table = seat_table(1, ("a", "b", "c"), seed=3)
    assert table.big_blind in table.players and table.button in table.players
    assert table.button != table.big_blind
