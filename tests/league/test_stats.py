"""League statistics: intervals against direct formulas, duplicate adjustment, crosstable, rankings."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from arena.engine.errors import MalformedInput
from arena.league.leaderboard import render_table, to_csv, to_dict
from arena.league.stats import (
    ALL_GAMES,
    Z_95,
    Estimate,
    clustered_estimate,
    compute_leaderboard,
    instant_runoff,
    mean_estimate,
)
from arena.storage.records import ResultRow

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def heads_up(a: str, b: str, net_a: int, *, match_id: int = 1, deal: str = "d", copy_index: int = 0,
             game: str = "FT", small_bet: int = 20) -> list[ResultRow]:
    """Both rows of one zero-sum heads-up hand."""
    return [ResultRow(a, game, net_a, small_bet, match_id, deal, copy_index, ((b, -net_a),)),
            ResultRow(b, game, -net_a, small_bet, match_id, deal, copy_index, ((a, net_a),))]


def multiway(nets: dict[str, int], *, match_id: int = 1, deal: str = "d", game: str = "F7S",
             small_bet: int = 20) -> list[ResultRow]:
    assert sum(nets.values()) == 0
    return [ResultRow(bot, game, net, small_bet, match_id, deal, 0,
                          tuple((o, n) for o, n in nets.items() if o != bot)) for bot, net in nets.items()]


def test_z_is_the_two_sided_95_percent_normal_quantile() -> None:
    assert abs(Z_95 - 1.959963984540054) < 1e-12


def test_hand_computed_example() -> None:
    # nets 10, 20, 30, 40 chips at a small bet of 10: 1000, 2000, 3000, 4000 mbb
    estimate = mean_estimate([1000.0, 2000.0, 3000.0, 4000.0])
    s = math.sqrt((1500**2 + 500**2 + 500**2 + 1500**2) / 3)  # 1290.99...
    assert estimate.mean_mbb == 2500.0
    assert estimate.stderr_mbb == pytest.approx(s / 2)  # s / sqrt(4) = 645.50
    t3 = 3.182446305284263  # Student's t, 0.975 quantile, 3 degrees of freedom (tables)
    assert estimate.ci_low_mbb == pytest.approx(2500 - t3 * s / 2)
    assert estimate.ci_high_mbb == pytest.approx(2500 + t3 * s / 2)
    assert estimate.ci_half_width_mbb == pytest.approx(2054.26, abs=0.01)


def test_raw_ci_matches_statistics_stdev_on_synthetic_results() -> None:
    rng = random.Random(7)
    nets = [round(rng.gauss(3, 60)) for _ in range(2000)]
    rows = [ResultRow("alice", "FT", n, 20, 1, f"d{i}") for i, n in enumerate(nets)]
    stats = compute_leaderboard(rows).stat("alice", "FT")
    assert stats is not None
    mbb = [1000 * n / 20 for n in nets]
    assert stats.hands == 2000 and stats.chips_won == sum(nets)
    assert stats.raw.mean_mbb == pytest.approx(statistics.fmean(mbb))
    assert stats.raw.stderr_mbb == pytest.approx(statistics.stdev(mbb) / math.sqrt(len(mbb)))
    t1999 = 1.961151  # Student's t, 0.975 quantile, 1999 degrees of freedom
    half = t1999 * statistics.stdev(mbb) / math.sqrt(len(mbb))
    assert (stats.raw.ci_low_mbb, stats.raw.ci_high_mbb) == pytest.approx((stats.mean_mbb - half,
                                                                           stats.mean_mbb + half))
    # one hand per deal: the duplicate-adjusted interval is the raw one
    assert stats.duplicate.stderr_mbb == pytest.approx(stats.raw.stderr_mbb)


def test_clustered_estimate_is_stdev_of_deal_sums_when_deals_are_equal_sized() -> None:
    rng = random.Random(3)
    groups = [(rng.gauss(100, 400) + rng.gauss(100, 400), 2) for _ in range(500)]
    estimate = clustered_estimate(groups)
    sums = [y for y, _ in groups]
    assert estimate.hands == 1000 and estimate.observations == 500
    assert estimate.mean_mbb == pytest.approx(statistics.fmean(sums) / 2)
    assert estimate.stderr_mbb == pytest.approx(statistics.stdev(sums) / (math.sqrt(500) * 2))


def test_fewer_than_two_observations_have_no_interval() -> None:
    assert mean_estimate([]) == Estimate(0, 0, 0.0, None)
    one = mean_estimate([500.0])
    assert (one.mean_mbb, one.stderr_mbb, one.ci_low_mbb, one.p_value, one.is_significant) == (
        500.0, None, None, None, False)


def duplicate_match(*, deals: int, luck_chips: float, edge_chips: int, seed: int) -> list[ResultRow]:
    """Heads-up duplicate: each deal twice, seats swapped, so the cards' luck cancels in the sum."""
    rng = random.Random(seed)
    rows: list[ResultRow] = []
    for d in range(deals):
        luck = round(rng.gauss(0, luck_chips))
        noise = [round(rng.gauss(0, 5)) for _ in range(2)]
        rows += heads_up("alice", "bob", luck + edge_chips + noise[0], deal=f"d{d}", copy_index=0)
        rows += heads_up("alice", "bob", -luck + edge_chips + noise[1], deal=f"d{d}", copy_index=1)
    return rows


def test_duplicate_adjusted_interval_is_narrower_when_luck_cancels() -> None:
    board = compute_leaderboard(duplicate_match(deals=400, luck_chips=300, edge_chips=2, seed=11))
    alice = board.stat("alice")
    assert alice is not None and alice.raw.stderr_mbb is not None and alice.duplicate.stderr_mbb is not None
    assert alice.raw.mean_mbb == alice.duplicate.mean_mbb
    assert alice.duplicate.observations == 400 and alice.raw.observations == 800
    assert alice.duplicate.stderr_mbb < alice.raw.stderr_mbb / 10
    assert alice.duplicate.ci_low_mbb is not None and alice.duplicate.ci_high_mbb is not None
    assert alice.duplicate.ci_low_mbb < 100.0 < alice.duplicate.ci_high_mbb  # true edge: 2 chips = 100 mbb
    pair = board.pair("alice", "bob")
    assert pair is not None and pair.is_significant and not pair.raw.is_significant


def test_results_per_game_and_all() -> None:
    rows = heads_up("alice", "bob", 20, deal="1", game="FT")
    rows += heads_up("alice", "bob", -10, deal="2", game="FR")
    rows += heads_up("alice", "bob", 40, deal="3", game="FR", small_bet=40)
    board = compute_leaderboard(rows)
    assert [(s.bot, s.game) for s in board.stats] == [("alice", "FT"), ("alice", "FR"), ("alice", ALL_GAMES),
                                                      ("bob", "FT"), ("bob", "FR"), ("bob", ALL_GAMES)]
    fr = board.stat("alice", "FR")
    assert fr is not None and (fr.hands, fr.chips_won, fr.mean_mbb) == (2, 30, (-500 + 1000) / 2)
    total = board.stat("alice")
    assert total is not None and (total.hands, total.chips_won) == (3, 50)
    assert total.mean_mbb == pytest.approx((1000 - 500 + 1000) / 3)
    assert board.stat("alice", "F7S") is None


def test_crosstable_is_antisymmetric_heads_up() -> None:
    rng = random.Random(5)
    rows = [r for i in range(300) for r in heads_up("alice", "bob", round(rng.gauss(2, 40)), deal=str(i))]
    board = compute_leaderboard(rows)
    ab, ba = board.pair("alice", "bob"), board.pair("bob", "alice")
    assert ab is not None and ba is not None
    assert ab.mean_mbb == pytest.approx(-ba.mean_mbb)
    assert ab.chips_won == pytest.approx(-ba.chips_won)
    assert ab.raw.stderr_mbb == pytest.approx(ba.raw.stderr_mbb)
    assert ab.hands == ba.hands == 300
    assert ab.p_value == pytest.approx(ba.p_value)
    alice = board.stat("alice")
    assert alice is not None and ab.mean_mbb == pytest.approx(alice.mean_mbb)  # heads-up: all from bob


def test_crosstable_multiway_shares_add_up_to_each_bots_result() -> None:
    rng = random.Random(9)
    rows: list[ResultRow] = []
    for i in range(200):
        a, b = rng.randint(-60, 60), rng.randint(-60, 60)
        rows += multiway({"alice": a, "bob": b, "carol": -a - b}, deal=str(i))
    board = compute_leaderboard(rows)
    for bot in board.bots:
        shares = [p.chips_won for p in board.crosstable if p.bot == bot]
        total = board.stat(bot)
        assert total is not None and math.fsum(shares) == pytest.approx(total.chips_won)
        for other in board.bots:
            if other != bot:
                pair, back = board.pair(bot, other), board.pair(other, bot)
                assert pair is not None and back is not None
                assert pair.mean_mbb == pytest.approx(-back.mean_mbb)


def test_significance_flag_and_p_value() -> None:
    rng = random.Random(1)
    strong = [r for i in range(500) for r in heads_up("alice", "bob", round(rng.gauss(10, 30)), deal=str(i))]
    pair = compute_leaderboard(strong).pair("alice", "bob")
    assert pair is not None and pair.is_significant
    assert pair.duplicate.stderr_mbb is not None and pair.p_value is not None
    z = abs(pair.mean_mbb) / pair.duplicate.stderr_mbb
    assert pair.p_value == pytest.approx(2 * (1 - statistics.NormalDist().cdf(z)), rel=0.05)  # t, 499 df
    assert pair.is_significant == (abs(pair.mean_mbb) > 1.9647 * pair.duplicate.stderr_mbb)
    balanced = [r for i in range(200) for r in heads_up("alice", "bob", 30 if i % 2 else -30, deal=str(i))]
    flat = compute_leaderboard(balanced).pair("alice", "bob")
    assert flat is not None and not flat.is_significant and flat.p_value == pytest.approx(1.0)


def rps_league() -> list[ResultRow]:
    """A crushes C, loses a little to B; B beats C a little. Small bet 20: 1 chip = 50 mbb."""
    rows: list[ResultRow] = []
    for i in range(10):
        rows += heads_up("A", "B", -1, match_id=1, deal=str(i))  # A: -50 mbb/hand against B
        rows += heads_up("A", "C", 20, match_id=2, deal=str(i))  # A: +1000 against C
        rows += heads_up("B", "C", 1, match_id=3, deal=str(i))  # B: +50 against C
    return rows


def test_instant_runoff_differs_from_total_bankroll() -> None:
    board = compute_leaderboard(rps_league())
    assert [(e.rank, e.bot) for e in board.total_bankroll] == [(1, "A"), (2, "B"), (3, "C")]
    assert [e.score_mbb for e in board.total_bankroll] == pytest.approx([475.0, 50.0, -525.0])
    # round 1 totals: A 950, B 100, C -1050 -> C out; round 2: A -50, B +50 -> A out
    assert [(e.rank, e.bot, e.eliminated_in_round) for e in board.instant_runoff] == [
        (1, "B", None), (2, "A", 2), (3, "C", 1)]
    assert [e.score_mbb for e in board.instant_runoff] == pytest.approx([50.0, -50.0, -1050.0])


def test_instant_runoff_ties_go_to_the_tie_break_then_the_name() -> None:
    means = {("x", "y"): 0.0, ("y", "x"): 0.0}
    assert [e.bot for e in instant_runoff(["x", "y"], means, tie_break={"x": 5.0, "y": 1.0})] == ["x", "y"]
    assert [e.bot for e in instant_runoff(["x", "y"], means)] == ["y", "x"]
    assert [(e.rank, e.bot, e.score_mbb) for e in instant_runoff(["solo"], {})] == [(1, "solo", 0.0)]
    # pairs that never met count 0, and incremental totals agree with a recount from scratch
    rng = random.Random(2)
    bots = [f"b{i}" for i in range(30)]
    sparse = {}
    for a in bots:
        for b in bots:
            if a < b and rng.random() < 0.5:
                v = rng.uniform(-100, 100)
                sparse[(a, b)], sparse[(b, a)] = v, -v
    ranking = instant_runoff(bots, sparse)
    survivors = set(bots)
    for entry in sorted(ranking, key=lambda e: e.eliminated_in_round or len(bots)):
        if entry.eliminated_in_round is None:
            break
        totals = {a: sum(sparse.get((a, b), 0.0) for b in survivors if b != a) for a in survivors}
        assert entry.bot == min(survivors, key=lambda a: (round(totals[a], 6), a))  # 0-0 ties: by name
        assert entry.score_mbb == pytest.approx(totals[entry.bot])
        survivors.remove(entry.bot)


def test_bad_input_is_refused() -> None:
    with pytest.raises(MalformedInput, match="unknown game"):
        compute_leaderboard([ResultRow("a", "NLHE", 1, 20, 1, "d")])
    with pytest.raises(MalformedInput, match="small bet"):
        compute_leaderboard([ResultRow("a", "FT", 1, 0, 1, "d")])


def test_no_results_no_bots() -> None:
    board = compute_leaderboard([])
    assert (board.bots, board.stats, board.crosstable, board.total_bankroll, board.instant_runoff) == (
        (), (), (), (), ())


def test_luck_adjusted_estimates_use_net_minus_luck_over_hands_with_luck() -> None:
    """Raw and duplicate stay on every hand; luck-adjusted ones average net - luck over the
    hands whose luck is known, per bot and game and per pair."""
    rows: list[ResultRow] = []
    nets_and_luck = [(40, 30.0), (-20, -25.0), (60, 50.0), (-10, 0.0)]
    for k, (net, luck) in enumerate(nets_and_luck):
        deal = f"d{k}"
        rows += [ResultRow("a", "FT", net, 20, 1, deal, 0, (("b", -net),), k + 1, 0, luck, (-luck,)),
                 ResultRow("b", "FT", -net, 20, 1, deal, 0, (("a", net),), k + 1, 1, -luck, (luck,))]
    rows += heads_up("a", "b", 100, deal="no-luck")  # a hand of a match still running
    board = compute_leaderboard(rows)
    a = board.stat("a", "FT")
    assert a is not None and a.hands == 5 and a.luck.hands == 4
    adjusted = [1000 * (net - luck) / 20 for net, luck in nets_and_luck]
    assert a.luck.mean_mbb == pytest.approx(statistics.fmean(adjusted))
    assert a.luck.stderr_mbb == pytest.approx(statistics.stdev(adjusted) / 2)
    assert a.duplicate_luck.observations == 4
    pair = board.pair("a", "b")
    assert pair is not None and pair.luck.hands == 4
    assert pair.luck.mean_mbb == pytest.approx(statistics.fmean(adjusted))  # (adj_a - adj_b) / 2
    b = board.stat("b")
    assert b is not None and b.luck.mean_mbb == pytest.approx(-statistics.fmean(adjusted))
    data = to_dict(board)
    first = next(r for r in data["results"] if r["bot"] == "a" and r["game"] == "FT")
    assert first["luck_adjusted"]["hands"] == 4
    assert first["luck_adjusted"]["mbb_per_hand"] == pytest.approx(a.luck.mean_mbb)
    header = to_csv(board).splitlines()[0]
    assert "luck_mbb_per_hand" in header.split(",") and "dup_luck_ci_high_mbb" in header.split(",")
    assert "luck-adj" in render_table(board)
