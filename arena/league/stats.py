"""League statistics: mbb/hand with 95% confidence intervals, a pairwise crosstable and rankings.

Units: mbb/hand is 1000 x chips / small bet, per hand (docs/house-rules.md §8: the big blind is the
small bet).
Confidence intervals are Student's t intervals with the sample standard deviation: the mean ±
t(0.975, k - 1) standard errors, k the independent observations (hands, or deal groups for the
duplicate-adjusted ones), so they keep their 95% at a few observations; below two observations
no interval is shown (None). Duplicate
deals are correlated (the same cards in rotated seats), so beside the raw interval every estimate
has a *duplicate-adjusted* one in which the sum over all copies of a deal is one observation.
Where the hands' luck is known (`arena.engine.luck`), the *luck-adjusted* estimates average
``net - luck`` instead of ``net``, raw and duplicate-adjusted, over those hands.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from arena.engine.errors import MalformedInput
from arena.engine.games import ALL_GAMES as ALL_GAMES
from arena.engine.games import ALL_VARIANTS
from arena.engine.student import t_95, two_sided_p
from arena.engine.units import Z_95 as Z_95
from arena.engine.units import mbb
from arena.storage.records import ResultRow

# Per-game keys, the order of the rows by game: every game code (the arena's, then issue 42's,
# docs/house-rules.md §21-§25), then "all".
GAME_KEYS: tuple[str, ...] = (*ALL_VARIANTS, ALL_GAMES)


# --------------------------------------------------------------------------- estimates


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean in mbb/hand with its standard error; ``stderr_mbb`` is None below two observations."""

    hands: int
    observations: int  # independent observations: hands (raw) or deal groups (duplicate-adjusted)
    mean_mbb: float
    stderr_mbb: float | None

    @property
    def ci_half_width_mbb(self) -> float | None:
        multiplier = t_95(self.observations)
        return None if self.stderr_mbb is None or multiplier is None else multiplier * self.stderr_mbb

    @property
    def ci_low_mbb(self) -> float | None:
        half = self.ci_half_width_mbb
        return None if half is None else self.mean_mbb - half

    @property
    def ci_high_mbb(self) -> float | None:
        half = self.ci_half_width_mbb
        return None if half is None else self.mean_mbb + half

    @property
    def p_value(self) -> float | None:
        """Two-sided p-value of "the true mean is 0" (t test, observations - 1 degrees of freedom)."""
        if self.stderr_mbb is None or self.observations < 2:
            return None
        if self.stderr_mbb == 0.0:
            return 1.0 if self.mean_mbb == 0.0 else 0.0
        return two_sided_p(self.mean_mbb / self.stderr_mbb, self.observations - 1)

    @property
    def is_significant(self) -> bool:
        """|mean| > t(0.975, k - 1) standard errors: the 95% interval excludes zero."""
        half = self.ci_half_width_mbb
        return half is not None and abs(self.mean_mbb) > half


EMPTY = Estimate(0, 0, 0.0, None)


def mean_estimate(values_mbb: Sequence[float]) -> Estimate:
    """Independent per-hand values: mean ± s/√n with s the sample standard deviation (n - 1)."""
    return clustered_estimate([(v, 1) for v in values_mbb])


def clustered_estimate(groups: Sequence[tuple[float, int]]) -> Estimate:
    """Per-hand mean from groups of correlated hands, each given as (sum of mbb, hands in it).

    The mean is R = ΣY / Σm. Its standard error is the ratio (cluster) estimator
    SE² = Σ (Y_g - R·m_g)² / (G (G - 1) m̄²) with m̄ = Σm / G. With one hand per group it is
    exactly s²/n; with m hands in every group it is stdev(Y)² / (G m²).
    """
    count = len(groups)
    hands = sum(m for _, m in groups)
    if hands == 0:
        return EMPTY
    mean = math.fsum(y for y, _ in groups) / hands
    if count < 2:
        return Estimate(hands, count, mean, None)
    mean_size = hands / count
    squares = math.fsum((y - mean * m) ** 2 for y, m in groups)
    stderr = math.sqrt(squares / (count * (count - 1))) / mean_size
    return Estimate(hands, count, mean, stderr)


@dataclass
class _Accumulator:
    """mbb values of one (bot, game) or (bot, opponent): running moments, and sums by deal group."""

    groups: dict[tuple[int, str], list[float]] = field(default_factory=dict)  # key -> [sum, hands]
    hands: int = 0
    mean: float = 0.0
    squares: float = 0.0  # Welford's running sum of squared deviations
    chips: float = 0.0

    def add(self, group: tuple[int, str], value_mbb: float, chips: float) -> None:
        self.hands += 1
        delta = value_mbb - self.mean
        self.mean += delta / self.hands
        self.squares += delta * (value_mbb - self.mean)
        entry = self.groups.setdefault(group, [0.0, 0.0])
        entry[0] += value_mbb
        entry[1] += 1
        self.chips += chips

    def raw(self) -> Estimate:
        if self.hands < 2:
            return Estimate(self.hands, self.hands, self.mean, None)
        stderr = math.sqrt(self.squares / (self.hands - 1) / self.hands)
        return Estimate(self.hands, self.hands, self.mean, stderr)

    def duplicate(self) -> Estimate:
        return clustered_estimate([(y, int(m)) for y, m in self.groups.values()])


# --------------------------------------------------------------------------- snapshot


@dataclass(frozen=True, slots=True)
class BotGameStats:
    bot: str
    game: str  # a PHH code or "all"
    hands: int
    chips_won: int
    raw: Estimate
    duplicate: Estimate  # same mean; the variance counts each duplicate deal as one observation
    luck: Estimate = EMPTY  # net - luck per hand, over the hands whose luck is known
    duplicate_luck: Estimate = EMPTY  # the same with each duplicate deal as one observation

    @property
    def mean_mbb(self) -> float:
        return self.raw.mean_mbb


@dataclass(frozen=True, slots=True)
class PairStats:
    """What ``bot`` won from ``opponent`` in the hands where both sat (antisymmetric).

    Per hand, with n seats: (net of bot - net of opponent) / n. Heads-up that is the bot's net;
    multiway the shares against each opponent add up to the bot's net.
    """

    bot: str
    opponent: str
    hands: int
    chips_won: float
    raw: Estimate
    duplicate: Estimate
    luck: Estimate = EMPTY
    duplicate_luck: Estimate = EMPTY

    @property
    def mean_mbb(self) -> float:
        return self.raw.mean_mbb

    @property
    def p_value(self) -> float | None:
        return self.duplicate.p_value

    @property
    def is_significant(self) -> bool:
        return self.duplicate.is_significant


@dataclass(frozen=True, slots=True)
class RankEntry:
    rank: int
    bot: str
    score_mbb: float  # bankroll: mean mbb/hand; run-off: total vs the survivors of its last round
    ci_half_width_mbb: float | None = None  # bankroll only
    eliminated_in_round: int | None = None  # run-off only; None for the winner


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """One snapshot of a league's results: per-bot stats, crosstable and both rankings."""

    bots: tuple[str, ...]
    stats: tuple[BotGameStats, ...]  # per bot, then per game in GAME_KEYS order; games with hands only
    crosstable: tuple[PairStats, ...]  # every ordered pair that shared a hand
    total_bankroll: tuple[RankEntry, ...]
    instant_runoff: tuple[RankEntry, ...]

    _stat_index: dict[tuple[str, str], BotGameStats] = field(init=False, repr=False, compare=False)
    _pair_index: dict[tuple[str, str], PairStats] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_stat_index", {(s.bot, s.game): s for s in self.stats})
        object.__setattr__(self, "_pair_index", {(p.bot, p.opponent): p for p in self.crosstable})

    def stat(self, bot: str, game: str = ALL_GAMES) -> BotGameStats | None:
        return self._stat_index.get((bot, game))

    def pair(self, bot: str, opponent: str) -> PairStats | None:
        return self._pair_index.get((bot, opponent))


def compute_leaderboard(results: Iterable[ResultRow]) -> Leaderboard:
    """Aggregate per-hand results in one pass; memory grows with the number of deals, not hands."""
    per_game: dict[tuple[str, str], _Accumulator] = {}
    per_pair: dict[tuple[str, str], _Accumulator] = {}
    luck_game: dict[tuple[str, str], _Accumulator] = {}
    luck_pair: dict[tuple[str, str], _Accumulator] = {}
    chips: dict[tuple[str, str], int] = {}
    for row in results:
        if row.game_code not in ALL_VARIANTS:
            raise MalformedInput(f"match {row.match_id}: unknown game {row.game_code!r}")
        if row.small_bet_chips <= 0:
            raise MalformedInput(f"match {row.match_id}: small bet {row.small_bet_chips} is not positive")
        group = (row.match_id, row.deal_id)
        luck = row.luck_chips
        for game in (row.game_code, ALL_GAMES):
            acc = per_game.setdefault((row.bot, game), _Accumulator())
            acc.add(group, mbb(row.net_chips, row.small_bet_chips), row.net_chips)
            chips[(row.bot, game)] = chips.get((row.bot, game), 0) + row.net_chips
            if luck is not None:
                adjusted = row.net_chips - luck
                luck_game.setdefault((row.bot, game), _Accumulator()).add(
                    group, mbb(adjusted, row.small_bet_chips), adjusted)
        seat_count = 1 + len(row.opponents)
        opponents_luck = row.opponents_luck_chips if luck is not None else ()
        for k, (opponent, opponent_net) in enumerate(row.opponents):
            share = (row.net_chips - opponent_net) / seat_count
            per_pair.setdefault((row.bot, opponent), _Accumulator()).add(
                group, mbb(share, row.small_bet_chips), share)
            if luck is not None and k < len(opponents_luck):
                share -= (luck - opponents_luck[k]) / seat_count
                luck_pair.setdefault((row.bot, opponent), _Accumulator()).add(
                    group, mbb(share, row.small_bet_chips), share)

    def luck_of(table: dict[tuple[str, str], _Accumulator],
                key: tuple[str, str]) -> tuple[Estimate, Estimate]:
        acc = table.get(key)
        return (EMPTY, EMPTY) if acc is None else (acc.raw(), acc.duplicate())

    bots = tuple(sorted({bot for bot, _ in per_game} | {b for pair in per_pair for b in pair}))
    order = {game: i for i, game in enumerate(GAME_KEYS)}
    stats = tuple(
        BotGameStats(bot, game, acc.hands, chips[(bot, game)], acc.raw(), acc.duplicate(),
                     *luck_of(luck_game, (bot, game)))
        for (bot, game), acc in sorted(per_game.items(), key=lambda kv: (kv[0][0], order[kv[0][1]])))
    crosstable = tuple(PairStats(bot, opp, acc.hands, acc.chips, acc.raw(), acc.duplicate(),
                                 *luck_of(luck_pair, (bot, opp)))
                       for (bot, opp), acc in sorted(per_pair.items()))
    overall = {s.bot: s for s in stats if s.game == ALL_GAMES}
    bankroll = total_bankroll(overall.values(), bots)
    pair_means = {(p.bot, p.opponent): p.mean_mbb for p in crosstable}
    runoff = instant_runoff(bots, pair_means, tie_break={s.bot: s.mean_mbb for s in overall.values()})
    return Leaderboard(bots, stats, crosstable, bankroll, runoff)


# --------------------------------------------------------------------------- rankings


def total_bankroll(overall: Iterable[BotGameStats], bots: Sequence[str] = ()) -> tuple[RankEntry, ...]:
    """Rank by mean mbb/hand over all games; bots without hands come last with 0."""
    by_bot = {s.bot: s for s in overall}
    names = sorted(set(bots) | set(by_bot))
    ranked = sorted(names, key=lambda b: (-(by_bot[b].mean_mbb if b in by_bot else 0.0), b))
    return tuple(RankEntry(i + 1, b, by_bot[b].mean_mbb if b in by_bot else 0.0,
                           by_bot[b].raw.ci_half_width_mbb if b in by_bot else None)
                 for i, b in enumerate(ranked))


def instant_runoff(bots: Sequence[str], pair_mean_mbb: Mapping[tuple[str, str], float], *,
                   tie_break: Mapping[str, float] | None = None) -> tuple[RankEntry, ...]:
    """ACPC instant run-off: drop the bot with the lowest total against the survivors, repeat.

    A bot's total is the sum of its crosstable means (mbb/hand) against each surviving bot (0 for
    a pair that never met), so every opponent weighs the same whatever the number of hands.
    Ties go out by the lower ``tie_break`` (the overall mean), then by name. Ranks are the
    reverse elimination order: the last survivor is first.
    """
    tie_break = tie_break or {}
    survivors = set(bots)
    totals = dict.fromkeys(survivors, 0.0)
    for (a, b), mean in pair_mean_mbb.items():
        if a in survivors and b in survivors and a != b:
            totals[a] += mean
    eliminated: list[RankEntry] = []
    round_number = 0
    while len(survivors) > 1:
        round_number += 1
        # Totals are updated incrementally (O(n) a round, not O(n²)); rounding to 1e-6 mbb keeps
        # float noise from deciding exact ties, which then go to the tie-break. Reported scores
        # are summed afresh.
        loser = min(survivors, key=lambda b: (round(totals[b], 6), tie_break.get(b, 0.0), b))
        score = math.fsum(pair_mean_mbb.get((loser, b), 0.0) for b in survivors if b != loser)
        survivors.remove(loser)
        del totals[loser]
        eliminated.append(RankEntry(0, loser, score, None, round_number))
        for bot in survivors:
            totals[bot] -= pair_mean_mbb.get((bot, loser), 0.0)
    last_opponent = eliminated[-1].bot if eliminated else None
    standing = [RankEntry(0, b, pair_mean_mbb.get((b, last_opponent), 0.0) if last_opponent else 0.0)
                for b in survivors] + eliminated[::-1]
    return tuple(RankEntry(i + 1, e.bot, e.score_mbb, None, e.eliminated_in_round)
                 for i, e in enumerate(standing))
