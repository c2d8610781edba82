"""A dealer's-choice league over gRPC (docs/house-rules.md §28): bot processes choose each
orbit's game, the league plays to the end, the event log records every choice with its
chooser, each hand is logged in the chosen game, and `arena replay` replays the logs."""

from __future__ import annotations

import io
from pathlib import Path

from arena.engine.rules import Rules
from arena.server.eventrecord import read_events
from arena.storage.replay import replay_paths
from tests.league.test_league_e2e import LeagueProcess, phh_tables, write_league


def test_a_dealers_choice_league_logs_the_choices_and_replays(tmp_path: Path) -> None:
    bots = [("alpha", "rules"), ("beta", "random")]
    league = write_league(tmp_path, bots, duplicate=False, hands_per_match=6,
                          rules='games = ["FT", "F7S", "FR"]\ndealers_choice = true')
    code, output = LeagueProcess(league, bots).wait(timeout=200)
    assert code == 0, output
    logs = tmp_path / "logs"
    (events_path,) = logs.glob("*.events.pb")
    events = [record["event"] for record in read_events(events_path)]
    changes = [e["game_changed"] for e in events if "game_changed" in e]
    # Heads-up: an orbit is two hands; one announcement per orbit (the log keeps one record for
    # an event every seat was sent).
    assert [c["first_hand_number"] for c in changes] == [1, 3, 5]
    assert all(c["dealers_choice"] and c["hands"] == 2 for c in changes)
    assert [c["chooser_seat"] for c in changes][::2] == [changes[0]["chooser_seat"]] * 2
    assert changes[1]["chooser_seat"] != changes[0]["chooser_seat"]
    hands = phh_tables(logs)
    assert len(hands) == 6
    assert [h["variant"] for h in hands] == [c["game_code"] for c in changes for _ in range(2)]
    out = io.StringIO()
    assert replay_paths([str(p) for p in sorted(logs.glob("*.phhs"))
                         if not p.name.endswith(".void.phhs")],
                        rules=Rules(), show=False, hand_id=None, out=out) == 0, out.getvalue()
