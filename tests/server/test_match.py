"""A full H.O.R.S.E. match of the example bots, every bot and the dealer in its own process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.engine.phh import iter_replays
from arena.host.phhfile import load_file
from tests.server.procs import start_bot, start_server, write_config

pytestmark = pytest.mark.timeout(90)

BOTS = [("random", "random"), ("call", "station"), ("rules", "rules-a"), ("rules", "rules-b")]


def test_four_example_bots_play_two_orbits_of_each_game(tmp_path: Path) -> None:
    seats = [(name, f"token-{name}-0123456789") for _, name in BOTS]
    config = write_config(tmp_path / "match.toml", seats=seats, top={
        "listen": "127.0.0.1:0", "log_dir": "logs", "hands": 40, "seed": 2026,
        "match_id": "horse", "start_timeout_seconds": 30,
    }, rules={"decision_seconds": 5.0, "time_bank_seconds": 10.0})
    server, address = start_server(config)
    bots = [start_bot(kind, address, token, name=name)
            for (kind, name), (_, token) in zip(BOTS, seats, strict=True)]
    try:
        outputs = [bot.communicate(timeout=60) for bot in bots]
        out, err = server.communicate(timeout=30)
    finally:
        for proc in (server, *bots):
            proc.kill()
    for bot, (bot_out, bot_err) in zip(bots, outputs, strict=True):
        assert bot.returncode == 0, bot_err
        assert "1 match(es) ended; all your matches on this dealer are over" in bot_out, bot_out + bot_err
    assert server.returncode == 0, err
    assert "Traceback" not in err
    assert "match horse: 40 hands, finished" in out
    assert "mbb/hand" in out

    result = json.loads((tmp_path / "logs" / "horse.result.json").read_text())
    assert result["hands_played"] == 40 and not result["aborted"]
    assert result["match_seed"] == 2026
    assert sum(r["net_chips"] for r in result["results"]) == 0
    assert result["decisions"]["timeouts"] == 0 and result["decisions"]["rejected"] == 0

    hands = load_file(str(tmp_path / "logs" / "horse.phhs"))
    assert [h.fields["variant"] for h in hands] == (["FT"] * 4 + ["FO/8"] * 4 + ["FR"] * 4
                                                    + ["F7S"] * 4 + ["F7S/8"] * 4) * 2
    net = {name: 0 for _, name in BOTS}
    for hand, state, error in iter_replays(hands):
        assert error is None, error
        assert state is not None
        assert sum(state.stacks) == sum(hand.fields["starting_stacks"])  # chips conserved
        assert hand.fields["finishing_stacks"] == state.stacks
        for name, start, end in zip(hand.fields["players"], hand.fields["starting_stacks"],
                                    state.stacks, strict=True):
            net[name] += end - start
        assert hand.fields["_match_id"] == "horse"
        assert hand.fields["_timeouts"] == [0] * 4
        timings = [hand.fields[k] for k in ("_action_seconds", "_wire_seconds", "_think_seconds")]
        assert len({len(t) for t in timings}) == 1
        for action, wire, think in zip(*timings, strict=True):
            assert 0 <= think <= wire + 1e-3 and wire <= action + 0.05
    assert net == {r["name"]: r["net_chips"] for r in result["results"]}


@pytest.mark.no_dealer
def test_the_match_file_takes_an_absent_policy(tmp_path: Path) -> None:
    from arena.engine.errors import ConfigError
    from arena.match.spec import AbsentPolicy
    from arena.server.config import config_from_mapping

    seats = [{"name": "a", "token": "token-a-123"}, {"name": "b", "token": "token-b-123"}]
    assert config_from_mapping({"seats": seats}).matches[0].absent is AbsentPolicy.CHECK_FOLD
    config = config_from_mapping({"seats": seats, "absent": "wait",
                                  "tables": [{"id": "x", "seats": ["a", "b"]}]})
    assert [m.absent for m in config.matches] == [AbsentPolicy.WAIT]
    with pytest.raises(ConfigError, match="'absent' must be one of 'wait', 'forfeit', 'check_fold'"):
        config_from_mapping({"seats": seats, "absent": "later"})
