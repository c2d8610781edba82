"""Example bots: random, calling station, a rule-based bot that plays all five games sensibly,
and a mixed one that declares the rule-based bot's hand reading as strategies the dealer draws
from."""

from __future__ import annotations

import random
from collections.abc import Callable

from arena_bot import handeval as he
from arena_bot.strategy import Strategy
from arena_bot.view import Action, SeatView


def random_bot(seed: int | None = None, *, per_decision: bool = False
               ) -> Callable[[SeatView], Action]:
    """Uniform over the legal kinds, then over the legal raise amounts (no-limit and pot-limit:
    the minimum, the maximum, or any amount between).

    ``per_decision``: each decision draws from its own generator seeded by ``seed`` and the
    decision id, so the same decision gets the same answer however the bot's tables interleave
    (``arena bot random --seed N --seed-each-decision``); otherwise one generator seeded once.
    """
    shared = random.Random(seed)

    def choose(view: SeatView) -> Action:
        rng = random.Random(f"{seed}/{view.request.decision_id}") if per_decision else shared
        kind = rng.choice(sorted(view.choices))
        if kind == Action.CHOOSE_GAME:  # dealer's choice: any game of the menu
            return view.choose_game(rng.choice(view.choosable_games))
        if kind == Action.EXCHANGE:  # any of its cards, up to the most it may give up
            choice = view.choices[kind]
            return view.exchange(rng.sample(choice.exchangeable_cards,
                                            rng.randint(choice.min_cards, choice.max_cards)))
        if kind == Action.RAISE:
            choice = view.choices[kind]
            if choice.any_amount and rng.random() < 0.5:
                return view.raise_to(rng.randint(choice.min_to_chips, choice.max_to_chips))
            return view.raise_to(rng.choice((choice.min_to_chips, choice.max_to_chips)))
        return Action(kind)

    return choose


def calling_station(view: SeatView) -> Action:
    """Never folds, never raises: posts the bring-in, checks or calls."""
    return view.check_or_call()


# ----------------------------------------------------------------------------- rule-based


def rule_based(view: SeatView) -> Action:
    """Fixed-limit rules of thumb per game: raise strong hands, call fair ones, fold the rest;
    in 2-7 triple draw keep the distinct low cards and draw to the rest; stand pat in the
    other exchange games. In dealer's choice it deals the game it reads best (fixed-limit
    hold'em, then stud, then the rest in its order of skill)."""
    if view.is_game_choice:
        return choose_known_game(view)
    if view.is_exchange_round:
        return triple_draw_exchange(view) if view.game == "F2L3D" else view.stand_pat()
    play = _BY_GAME.get(view.game, _stud)
    return play(view)


def _strong(view: SeatView) -> Action:
    return view.bet_or_raise()


def _fair(view: SeatView) -> Action:
    """Call one bet; fold to a raise war unless checking is free."""
    if view.can(Action.CHECK) or view.can(Action.BRING_IN):
        return view.check_or_call()
    if view.to_call_chips <= 2 * max(view.bet_size_chips, 1):
        return view.call()
    return view.fold()


def _chen(cards: list[str]) -> float:
    """A pre-flop score of two cards (after Bill Chen): 20 for aces, about 6 for fair hands."""
    r1, r2 = sorted((he.rank(c) for c in cards), reverse=True)
    base = {14: 10.0, 13: 8.0, 12: 7.0, 11: 6.0}.get(r1, r1 / 2)
    if r1 == r2:
        return max(5.0, base * 2)
    score = base + (2 if he.suit(cards[0]) == he.suit(cards[1]) else 0)
    gap = r1 - r2 - 1
    score -= (0, 1, 2, 4)[gap] if gap < 4 else 5
    if gap <= 1 and r1 < 12:
        score += 1
    return score


def _holdem(view: SeatView) -> Action:
    hole, board = view.hole_cards, view.board
    if not board:
        score = _chen(hole)
        if score >= 9:
            return _strong(view)
        return _fair(view) if score >= 6 else view.check_or_fold()
    mine = he.best_high(hole + board)
    table = he.best_high(board)
    if mine[0] >= he.TWO_PAIR and mine > table:
        return _strong(view)
    if mine[0] == he.PAIR and mine > table:
        pair = mine[1]
        if pair >= max(he.rank(c) for c in board):
            return _strong(view)  # top pair or an overpair
        return _fair(view)
    if len(board) < 5 and he.flush_draw(hole + board):
        return _fair(view)
    return view.check_or_fold()


def _omaha(view: SeatView) -> Action:
    hole, board = view.hole_cards, view.board
    lows = he.low_cards(hole)
    if not board:
        score = 0
        if 1 in lows and (2 in lows or 3 in lows):
            score += 3
        if len(lows) >= 3:
            score += 2
        ranks = [he.rank(c) for c in hole]
        if any(ranks.count(r) == 2 and r >= 12 for r in ranks):
            score += 2
        if score >= 4:
            return _strong(view)
        return _fair(view) if score >= 2 else view.check_or_fold()
    high = he.best_omaha_high(hole, board)
    low = he.best_omaha_low(hole, board)
    if high[0] >= he.STRAIGHT or (low is not None and low[1] <= 6):
        return _strong(view)
    if high[0] >= he.TWO_PAIR or low is not None:
        return _fair(view)
    board_lows = he.low_cards(board)
    if len(board) < 5 and len(board_lows) >= 2 and 1 in lows and (2 in lows or 3 in lows):
        return _fair(view)
    return view.check_or_fold()


def _low_draw(view: SeatView, *, limit: int) -> tuple[int, int]:
    """(distinct low cards held, how many a perfect draw would hold by now)."""
    cards = view.my_cards
    return len(he.low_cards(cards, limit=limit)), min(5, len(cards))


def _razz(view: SeatView) -> Action:
    held, need = _low_draw(view, limit=8)
    if view.street == "third":
        smooth = len(he.low_cards(view.my_cards, limit=7)) == 3
        if view.can(Action.BRING_IN):
            return view.raise_min() if smooth and view.can(Action.RAISE) else view.bring_in()
        if smooth:
            return _strong(view)
        return _fair(view) if held == 3 else view.check_or_fold()
    if len(view.my_cards) >= 5:
        low = he.best_low(view.my_cards, eight=True)
        if low is not None and low[1] <= 7:
            return _strong(view)
        if low is not None:
            return _fair(view)
    if held >= need:
        return _strong(view)
    return _fair(view) if held >= need - 1 else view.check_or_fold()


def _stud(view: SeatView) -> Action:
    cards = view.my_cards
    high = he.best_high(cards)
    if view.street == "third":
        ranks = [he.rank(c) for c in cards]
        big_pair = high[0] >= he.PAIR and high[1] >= 10
        if view.can(Action.BRING_IN):
            return view.raise_min() if big_pair and view.can(Action.RAISE) else view.bring_in()
        if high[0] >= he.TRIPS or big_pair:
            return _strong(view)
        three_flush = len({he.suit(c) for c in cards}) == 1
        if high[0] == he.PAIR or three_flush or min(ranks) >= 10:
            return _fair(view)
        return view.check_or_fold()
    if high[0] >= he.TWO_PAIR:
        return _strong(view)
    if high[0] == he.PAIR and high[1] >= 10:
        return _strong(view) if view.street in ("fourth", "fifth") else _fair(view)
    if high[0] == he.PAIR or (len(cards) < 7 and he.flush_draw(cards)):
        return _fair(view)
    return view.check_or_fold()


def _stud_hi_lo(view: SeatView) -> Action:
    cards = view.my_cards
    high = he.best_high(cards)
    held, need = _low_draw(view, limit=8)
    if view.street == "third":
        if view.can(Action.BRING_IN):
            good = held == 3 or (high[0] >= he.PAIR and high[1] >= 10)
            return view.raise_min() if good and view.can(Action.RAISE) else view.bring_in()
        if held == 3 or high[0] >= he.TRIPS:
            return _strong(view)
        return _fair(view) if held == 2 or high[0] >= he.PAIR else view.check_or_fold()
    low = he.best_low(cards, eight=True) if len(cards) >= 5 else None
    if high[0] >= he.TWO_PAIR or (low is not None and low[1] <= 7):
        return _strong(view)
    if low is not None or held >= need - 1 or high[0] == he.PAIR:
        return _fair(view)
    return view.check_or_fold()


def _deuce_to_seven_keep(cards: list[str]) -> list[str]:
    """The cards a 2-7 lowball draw keeps: one of each rank from deuce to eight (aces are high
    there), lowest first, at most five."""
    keep: list[str] = []
    ranks: set[int] = set()
    for card in sorted(cards, key=he.rank):
        r = he.rank(card)
        if r <= 8 and r not in ranks and len(keep) < 5:  # deuce (2) to eight
            keep.append(card)
            ranks.add(r)
    return keep


def triple_draw_exchange(view: SeatView) -> Action:
    """2-7 triple draw (docs/house-rules.md §21): give up every card that is not a distinct
    deuce-to-eight (pairs, nines and up, aces), as many as the round allows."""
    keep = _deuce_to_seven_keep(view.hole_cards)
    discard = [c for c in view.hole_cards if c not in keep][:view.max_exchange_cards]
    return view.exchange(discard)


def _triple_draw(view: SeatView) -> Action:
    """Bet a made deuce-to-eight low, call with four to one (one bet), else check or fold."""
    good = len(_deuce_to_seven_keep(view.hole_cards))
    if good == 5:
        return _strong(view)
    if good == 4 or (good == 3 and view.street == "predraw"):
        return _fair(view)
    return view.check_or_fold()


_BY_GAME: dict[str, Callable[[SeatView], Action]] = {
    "FT": _holdem, "FO/8": _omaha, "FR": _razz, "F7S": _stud, "F7S/8": _stud_hi_lo,
    "NT": _holdem, "PT": _holdem, "PO": _omaha,  # no-limit/pot-limit: the same hand reading,
    "F2L3D": _triple_draw,                       # minimum raises (always within the bounds)
}

# The games the rule-based bot reads best first (dealer's choice, docs/house-rules.md §28).
PREFERRED_GAMES: tuple[str, ...] = ("FT", "F7S", "FO/8", "F7S/8", "FR", "F2L3D", "NT", "PO", "PT")


def choose_known_game(view: SeatView) -> Action:
    """Dealer's choice: the first of :data:`PREFERRED_GAMES` on the menu, else the menu's first."""
    menu = view.choosable_games
    return view.choose_game(next((g for g in PREFERRED_GAMES if g in menu), menu[0]))


# ----------------------------------------------------------------------------- mixed


def mixed(view: SeatView) -> Strategy | Action:
    """The rule-based bot's hand reading, declared as a mixed strategy for the dealer to draw
    from (docs/strategy-replies.md): a strong hand raises 80% of the time and slow-plays the
    rest; a fair one mostly checks or calls, raises 15% and, facing a bet, folds 10%; a weak
    one facing a bet folds 85% and calls the rest. Every betting decision is a
    :class:`Strategy`; an exchange (draw games) is the rule-based bot's own action, since the
    dealer does not draw exchanges from strategies."""
    chosen = rule_based(view)
    if view.is_game_choice:  # its favourite half the time, any game of the menu otherwise
        menu = view.choosable_games
        choice_weights = {view.choose_game(g): 0.5 / len(menu) for g in menu}
        choice_weights[chosen] += 0.5
        return Strategy(choice_weights)
    if view.is_exchange_round:
        return chosen
    passive = view.check_or_call()  # a due bring-in, a free check, else a call
    raise_min = view.raise_min() if view.can(Action.RAISE) else None
    fold = view.fold() if view.can(Action.FOLD) and passive.kind == Action.CALL else None
    weights: dict[Action, float] = {}
    options: list[tuple[Action | None, float]]
    if chosen.kind == Action.RAISE:
        options = [(chosen, 0.8), (passive, 0.2)]
    elif chosen.kind == Action.FOLD:
        options = [(chosen, 0.85), (passive, 0.15)]
    else:
        options = [(passive, 0.75), (raise_min, 0.15), (fold, 0.1)]
    for action, weight in options:
        if action is not None:
            weights[action] = weights.get(action, 0.0) + weight
    total = sum(weights.values())
    return Strategy({action: weight / total for action, weight in weights.items()})


BOTS: dict[str, Callable[[int | None], Callable[[SeatView], Action | Strategy]]] = {
    "random": random_bot,
    "call": lambda _seed: calling_station,
    "rules": lambda _seed: rule_based,
    "mixed": lambda _seed: mixed,
}
