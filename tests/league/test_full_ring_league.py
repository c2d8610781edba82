"""A full-ring table over gRPC (docs/house-rules.md §20, docs/house-rules.md §20): an eleven-seat no-limit
hold'em duplicate league, eleven bot processes, played to the end; every copy re-deals the
same cards to the same seats and each bot plays each seat's cards once."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from tests.league.test_league_e2e import LeagueProcess, phh_tables, write_league


def test_eleven_seat_duplicate_league(tmp_path: Path) -> None:
    """docs/house-rules.md §20 [000 "zwei bis maximal elf Personen"] with §7 duplicate: seating, the
    button, blinds, side pots and the duplicate rotation at eleven seats, over gRPC."""
    bots = [(f"b{k}", "call" if k % 2 else "random") for k in range(11)]
    league = write_league(tmp_path, bots, format="multiway", seats_per_table=11, tables=1,
                          hands_per_match=1, tables_at_once=11, rules='games = ["NT"]')
    code, output = LeagueProcess(league, bots).wait(timeout=300)
    assert code == 0, output
    hands = phh_tables(tmp_path / "logs")
    assert len(hands) == 11  # eleven copies of one deal
    seat_cards: dict[str, str] = {}
    seats_by_bot: dict[str, set[str]] = defaultdict(set)
    for hand in hands:
        assert hand["variant"] == "NT" and len(hand["players"]) == 11  # type: ignore[arg-type]
        players = list(hand["players"])  # type: ignore[call-overload]
        seats = [str(s) for s in hand["_seats"]]  # type: ignore[attr-defined]
        for action in hand["actions"]:  # type: ignore[attr-defined]
            m = re.match(r"d dh p(\d+) (\S+)", action)
            if m:
                k = int(m.group(1)) - 1
                assert seat_cards.setdefault(seats[k], m.group(2)) == m.group(2)
                seats_by_bot[players[k]].add(seats[k])
    assert len(seat_cards) == 11
    for name, _kind in bots:
        assert seats_by_bot[name] == {str(s) for s in range(11)}, (name, seats_by_bot[name])
