"""`stop_when_significant`: a sequential test (SPRT) per pair of a heads-up duplicate league on
the pair's per-deal luck-adjusted results; the league stops once every pair is decided."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from arena.engine.luck import LuckSettings
from arena.engine.rules import Rules
from arena.league.luck import deal_observations
from arena.league.sprt import Decision, Sprt, SprtBounds
from arena.storage import store as st
from arena.storage.records import MatchStatus

Pair = tuple[str, str]


def pair_of(bots: Iterable[str]) -> Pair:
    first, second = sorted(bots)
    return first, second


class PairTests:
    """A deal-set observer for `arena.league.runner.LeagueRun`: one `Sprt` per pair of bots
    (bot names in order; the test is on the first one's results), fed with every ended deal set
    of the pair, those of earlier runs of the league included."""

    def __init__(self, store: st.ResultsStore, league_name: str, pairs: Iterable[Pair],
                 bounds: SprtBounds, *, rules: Rules, luck: LuckSettings | None, out: TextIO) -> None:
        self.store = store
        self.league_name = league_name
        self.bounds = bounds
        self.rules = rules
        self.luck = luck
        self.out = out
        self.tests: dict[Pair, Sprt] = {pair_of(p): Sprt(bounds) for p in pairs}
        self._fed: set[int] = set()

    def __call__(self, _store_match_id: int) -> bool:
        """Feed every newly ended deal set; True once every pair is decided."""
        league = self.store.find_league(self.league_name)
        if league is None:
            return False
        for match in self.store.list_matches(league.league_id):
            if match.status is not MatchStatus.FINISHED or match.match_id in self._fed:
                continue
            self._fed.add(match.match_id)
            pair = pair_of(match.seat_bots)
            test = self.tests.get(pair)
            if test is None or test.decision is not None:
                continue
            for value in deal_observations(self.store, league.league_id, match.match_id, pair[0],
                                           rules=self.rules, luck=self.luck):
                test.add(value)
            if test.decision is not None:
                verdict = ("better than" if test.decision is Decision.HIGH else "not better than")
                bound = self.bounds.high_mbb if test.decision is Decision.HIGH else self.bounds.low_mbb
                self.out.write(f"significant after {test.count} deals: {pair[0]} is {verdict} "
                               f"{pair[1]} by {bound:g} mbb/hand ({test.status()})\n")
                self.out.flush()
        return all(t.decision is not None for t in self.tests.values())
