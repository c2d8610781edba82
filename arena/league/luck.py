"""Luck (chance-only AIVAT) of a league's hands, computed from the stored hand logs of matches
whose seed is revealed, and kept in the results store under the league's value function."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from arena.engine.errors import ArenaError
from arena.engine.luck import LuckSettings, hand_luck
from arena.engine.phh import PhhHand, loads
from arena.engine.rules import Rules
from arena.engine.strategy import strategy_key
from arena.engine.strategy_log import copy_index_of, replay_strategies
from arena.host.phhfile import load_file
from arena.storage import store as st
from arena.storage.matchlog import match_seed_for
from arena.storage.verify import deal_seed

LUCK_BATCH_HANDS = 200


def luck_of_logged_hand(phh_text: str, match_seed: int | str, hand_number: int, *, rules: Rules,
                        settings: LuckSettings) -> tuple[float, ...]:
    """Each seat's luck in one logged hand (PHH text of one hand), its seeds from the match seed."""
    hands = loads(phh_text, name=f"hand {hand_number}")
    if len(hands) != 1:
        raise ArenaError(f"hand {hand_number}: expected one hand in its log, found {len(hands)}")
    return _luck(hands[0], match_seed, hand_number, rules=rules, settings=settings)


def _luck(hand: PhhHand, match_seed: int | str, hand_number: int, *, rules: Rules,
          settings: LuckSettings) -> tuple[float, ...]:
    """Each seat's luck in a hand replayed with its seeds (and strategy draws) from the match seed."""
    state, decisions = replay_strategies(hand, rules, key=strategy_key(match_seed, copy_index_of(hand)),
                                         hand_number=hand_number)
    return hand_luck(state.variant, state.events, state.seat_count,
                     hand_seed=deal_seed(match_seed, hand_number), settings=settings,
                     small_bet_chips=state.stakes.small_bet, big_bet_chips=state.stakes.big_bet,
                     decisions=decisions, rules=state.rules).luck_chips


def update_luck(store: st.ResultsStore, league_id: int, *, rules: Rules, settings: LuckSettings,
                match_ids: Iterable[int] | None = None) -> int:
    """Compute and store the luck of every hand that lacks it (ended matches only, or only
    ``match_ids``); returns how many hands were computed. A hand whose log cannot be replayed
    is an error naming it: the leaderboard never silently mixes adjusted and unadjusted hands."""
    wanted = None if match_ids is None else list(match_ids)
    done = 0
    while True:
        pending = store.hands_without_luck(league_id, settings.name, match_ids=wanted,
                                           limit=LUCK_BATCH_HANDS)
        if not pending:
            return done
        records = []
        for hand in pending:
            try:
                luck = luck_of_logged_hand(hand.phh_text, hand.seed, hand.hand_number, rules=rules,
                                           settings=settings)
            except (ArenaError, ValueError) as exc:
                raise ArenaError(f"match {hand.match_id} hand {hand.hand_number} copy "
                                 f"{hand.copy_index}: cannot compute its luck: {exc}") from None
            records.append(st.HandLuckRecord(hand.match_id, hand.hand_number, hand.copy_index,
                                             settings.name, luck))
        store.record_luck(records)
        done += len(records)


def luck_of_log_file(path: Path, *, rules: Rules,
                     settings: LuckSettings) -> list[tuple[int, tuple[str, ...], tuple[float, ...]]]:
    """Recompute the luck of every hand of a match log (``<match>.phhs`` with its revealed seed
    in ``<match>.result.json``): (hand number, players, luck by seat) per hand, in log order."""
    seed = match_seed_for(path)
    if seed is None:
        raise ArenaError(f"{path}: the match seed is not revealed yet (no .result.json)")
    out = []
    for hand in load_file(str(path)):
        number = hand.fields.get("_hand")
        if not isinstance(number, int) or number < 1:
            raise ArenaError(f"{hand.name}: missing arena field '_hand'")
        players = tuple(str(p) for p in hand.fields.get("players", ()))
        out.append((number, players, _luck(hand, seed, number, rules=rules, settings=settings)))
    return out


def deal_observations(store: st.ResultsStore, league_id: int, store_match_id: int, bot: str, *,
                      rules: Rules, luck: LuckSettings | None) -> list[float]:
    """``bot``'s result per deal of one ended match (deal set), in mbb/hand: the mean over the
    deal's copies, of ``net - luck`` (computed first where missing) or of ``net`` when ``luck``
    is None."""
    if luck is not None:
        update_luck(store, league_id, rules=rules, settings=luck, match_ids=[store_match_id])
    per_deal: dict[int, list[float]] = {}
    for row in store.iter_results(league_id, value_function=luck.name if luck else None):
        if row.match_id != store_match_id or row.bot != bot:
            continue
        net = float(row.net_chips)
        if luck is not None:
            if row.luck_chips is None:
                raise ArenaError(f"match {store_match_id} hand {row.hand_number}: no luck computed")
            net -= row.luck_chips
        per_deal.setdefault(row.hand_number, []).append(1000.0 * net / row.small_bet_chips)
    return [sum(v) / len(v) for _, v in sorted(per_deal.items())]
