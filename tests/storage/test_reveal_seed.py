"""A deal set's seed revealed in its copies' results files (by the league's finisher thread when the deal
set ends): byte for byte what reading the file and encoding it again gave; a file written
otherwise is encoded again as before; a broken one is still an error. The results file's seats
and decision percentiles are what `dataclasses.asdict` and each percentile alone made."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from arena.engine.cards import parse_card
from arena.match.messages import MatchSeatResult
from arena.match.records import MatchSummary, TableStats, percentile
from arena.storage.matchlog import MatchLog, MatchLogPaths, result_json, reveal_seed

SEED = 43120589590741576114489475795601893110482992956964242415783725939616487875017


def _summary(match_id: str) -> MatchSummary:
    stats = TableStats(prompts=9, answered=8, timeouts=1)
    stats.answer_seconds.extend([0.5, 0.25, 1e-7, 3.0])
    stats.lateness_seconds.append(0.0125)
    results = (MatchSeatResult(seat=0, name="ä \"b\"", bot_id="b0", net_chips=-5, hands_played=3,
                               mbb_per_hand=-83.33333333333333, mbb_per_hand_ci95=1.5e300,
                               final_stack_chips=995),
               MatchSeatResult(seat=1, name="c\n", bot_id="c1", net_chips=5, hands_played=3,
                               mbb_per_hand=83.33333333333333, mbb_per_hand_ci95=float("nan"),
                               final_stack_chips=1005))
    return MatchSummary(match_id, SEED, 3, results, False, "", ((0, parse_card("Ah")),
                                                               (1, parse_card("2c"))), stats)


def _reencoded(path: Path, seed: int | str) -> str:
    """What revealing the seed wrote before: the file read and encoded again."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["match_seed"] = seed
    return json.dumps(data, indent=2) + "\n"


@pytest.mark.parametrize("match_id", ["r1-t1-c1", 'a "quoted"\nid é'])
@pytest.mark.parametrize("seed", [SEED, 0, "7f3a"])
def test_a_revealed_seed_is_written_as_reencoding_the_file_wrote_it(
        tmp_path: Path, match_id: str, seed: int) -> None:
    log = MatchLog(tmp_path, match_id, resumable=True, reveal_seed=False,
                   result_extra={"deal_set": "r1-t1", "seed_commitment": "ab" * 32,
                                 "seed_configured": True, "nested": {"empty": [], "none": {}}})
    log.match_finished(_summary(match_id))
    paths = MatchLogPaths.of(tmp_path, match_id)
    assert json.loads(paths.result.read_text())["match_seed"] is None
    expected = _reencoded(paths.result, seed)
    reveal_seed(paths, seed)
    assert paths.result.read_text(encoding="utf-8") == expected
    assert json.loads(expected)["match_seed"] == seed
    reveal_seed(paths, seed)  # revealed already: the same again
    assert paths.result.read_text(encoding="utf-8") == expected


def test_a_results_file_written_otherwise_is_encoded_again_and_a_broken_one_is_an_error(
        tmp_path: Path) -> None:
    paths = MatchLogPaths.of(tmp_path, "m")
    paths.result.write_text('{"match_id": "m", "match_seed": null, "hands_played": 3}\n')
    expected = _reencoded(paths.result, SEED)
    reveal_seed(paths, SEED)
    assert paths.result.read_text() == expected
    paths.result.write_text('{\n  "match_id": "m",\n  "match_seed": null,\n  "x": \n}\n')
    with pytest.raises(json.JSONDecodeError):
        reveal_seed(paths, SEED)
    reveal_seed(MatchLogPaths.of(tmp_path, "none"), SEED)  # no results file: nothing to do
    assert not MatchLogPaths.of(tmp_path, "none").result.exists()


def test_the_decision_percentiles_are_as_each_computed_alone() -> None:
    rng = random.Random(5)
    for count in (0, 1, 2, 7, 100, 737):
        stats = TableStats()
        stats.answer_seconds.extend(rng.random() for _ in range(count))
        stats.lateness_seconds.extend(rng.choice((0.0, rng.random())) for _ in range(count // 2))
        summary = stats.summary()
        assert summary["answer_seconds_p50"] == percentile(stats.answer_seconds, 0.5)
        assert summary["answer_seconds_p99"] == percentile(stats.answer_seconds, 0.99)
        assert summary["timeout_lateness_seconds_p50"] == percentile(stats.lateness_seconds, 0.5)
        assert summary["timeout_lateness_seconds_p99"] == percentile(stats.lateness_seconds, 0.99)
        assert summary["timeout_lateness_seconds_max"] == max(stats.lateness_seconds, default=0.0)


def test_the_results_files_seats_are_as_asdict_made_them() -> None:
    summary = _summary("m")
    seats = result_json(summary)["results"]
    # As JSON: a NaN (a confidence interval of too few hands) read from a compiled class is a
    # new float each time, and NaN equals only itself.
    assert json.dumps(seats) == json.dumps([dataclasses.asdict(r) for r in summary.results])
    assert [list(seat) for seat in seats] == [list(dataclasses.asdict(r)) for r in summary.results]
    assert all(not dataclasses.is_dataclass(value) and not isinstance(value, list | dict | tuple)
               for seat in seats for value in seat.values())  # nothing `asdict` would copy
