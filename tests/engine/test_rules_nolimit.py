"""docs/house-rules.md §4: no-limit and pot-limit betting on the same machine, antes in the blind games,
the `games` entries and `ante_kind` keys, and their PHH (PokerKit 0.7.7 reads it).

Blinds 10/20 unless said otherwise; seats in PHH order (heads-up seat 0 is the big blind).
Expected amounts are worked out by hand in the comments.
"""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path

import pytest

from arena.engine.actions import ActionKind
from arena.engine.cards import parse_cards
from arena.engine.errors import AmountOutOfRange, ConfigError, IllegalAction
from arena.engine.events import ForcedBetPosted
from arena.engine.games import AnteKind, ForcedBet, GameCode, variant_for
from arena.engine.phh import ScriptedCards, dumps_hands, hand_fields, iter_replays, loads
from arena.engine.rules import Rules, Stakes
from arena.engine.state import HandState
from arena.match.simulate import simulate

F, X, C, R = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.RAISE
NT, PO, PT = GameCode.NO_LIMIT_HOLDEM, GameCode.POT_LIMIT_OMAHA, GameCode.POT_LIMIT_HOLDEM

_HOLES = ["AsKs", "QhQd", "7c2d", "9h8h", "5s5c", "JdTc"]
_OMAHA = ["2h3h", "4c4d", "TsJs", "KcKd", "6h7h", "8d9d"]


def hand(game: GameCode, stacks: list[int], *, rules: Rules | None = None) -> HandState:
    holes = _HOLES if game != PO else [a + b for a, b in zip(_HOLES, _OMAHA, strict=True)]
    source = ScriptedCards({s: parse_cards(holes[s]) for s in range(len(stacks))},
                           parse_cards("2c3d4h6s8c"), name="test")
    return HandState(variant_for(game), stacks, rules=rules or Rules(), cards=source)


def play(state: HandState, *moves: tuple[int, ActionKind] | tuple[int, ActionKind, int]) -> None:
    for move in moves:
        assert state.actor == move[0], f"expected seat {move[0]}, actor is {state.actor}"
        state.act(move[0], move[1], move[2] if len(move) == 3 else None)


def bounds(state: HandState) -> tuple[int | None, int | None]:
    legal = state.legal_actions()
    return legal.raise_min_to, legal.raise_max_to


# --------------------------------------------------------------------------- no-limit


def test_no_limit_opening_bounds_are_min_raise_to_all_in() -> None:
    """docs/house-rules.md §4: pre-flop the big blind is the bet; a raise is at least one more big blind
    (to 40), up to all the chips (1000); any amount between is legal."""
    state = hand(NT, [1000, 1000, 1000])
    legal = state.legal_actions()
    assert (legal.raise_min_to, legal.raise_max_to, legal.raise_is_range) == (40, 1000, True)
    assert legal.is_legal_raise(40) and legal.is_legal_raise(517) and legal.is_legal_raise(1000)
    assert not legal.is_legal_raise(39) and not legal.is_legal_raise(1001)
    state.act(2, R, 517)
    assert state.bets[2] == 517


@pytest.mark.parametrize("amount", [39, 21, 0, 1001, 10**9])
def test_no_limit_amount_out_of_range_rejected(amount: int) -> None:
    """docs/house-rules.md §4/§6: a "raise to" below the minimum raise or above the stack is rejected,
    naming the range, and changes nothing."""
    state = hand(NT, [1000, 1000, 1000])
    with pytest.raises(AmountOutOfRange, match="raise to 40 to 1000"):
        state.act(2, R, amount)
    assert state.bets == [10, 20, 0] and state.actor == 2


def test_no_limit_minimum_bet_is_the_big_blind_after_the_flop() -> None:
    """docs/house-rules.md §4: a bet is at least the big blind (20), whatever the pot."""
    state = hand(NT, [1000, 1000, 1000])
    play(state, (2, C), (0, C), (1, X))
    assert state.street_index == 1
    assert bounds(state) == (20, 980)


def test_no_limit_minimum_raise_is_the_last_full_raise_increment() -> None:
    """docs/house-rules.md §4: after a bet of 20 raised to 90 (increment 70), the next raise is to at
    least 160; a raise to 300 makes the increment 210 (next at least 510)."""
    state = hand(NT, [1000, 1000, 1000])
    play(state, (2, C), (0, C), (1, X), (0, R, 20), (1, R, 90))
    assert bounds(state) == (160, 980)
    play(state, (2, R, 300))
    assert bounds(state) == (510, 980)


def test_short_all_in_does_not_reopen_the_betting() -> None:
    """docs/house-rules.md §4: seat 0 bets 100, seat 1 is all in for 150 (short of a full raise to
    200): seat 0, who acted, may only call or fold; seat 2, who has not acted, may raise, to at
    least 250 (the current bet plus the last full increment of 100)."""
    state = hand(NT, [1000, 170, 1000])
    play(state, (2, C), (0, C), (1, X), (0, R, 100), (1, R, 150))
    assert bounds(state) == (250, 980)
    play(state, (2, C))
    legal = state.legal_actions()
    assert legal.seat == 0 and legal.raise_min_to is None and legal.call_to_chips == 150
    with pytest.raises(IllegalAction, match="may not bet or raise"):
        state.act(0, R, 250)


def test_short_all_ins_adding_up_to_a_full_raise_reopen_the_betting() -> None:
    """docs/house-rules.md §4: two all-ins of +60 and +50 after a bet of 100 together exceed a full raise
    (100): the bettor may raise again, to at least 210 + 100 = 310."""
    state = hand(NT, [1000, 180, 230, 1000])
    play(state, (2, C), (3, C), (0, C), (1, X))
    play(state, (0, R, 100), (1, R, 160), (2, R, 210), (3, C))
    assert state.actor == 0
    assert bounds(state) == (310, 980)


def test_pre_flop_short_all_in_over_the_big_blind_does_not_reopen_for_limpers() -> None:
    """docs/house-rules.md §4 (and §3: the big blind is the pre-flop bet): a limper facing only an
    all-in raise to 30 (10 over the big blind of 20) may call or fold; the big blind, who has
    not acted, may raise to at least 50."""
    state = hand(NT, [1000, 1000, 1000, 30])
    play(state, (2, C), (3, R, 30), (0, C))
    assert state.actor == 1 and bounds(state) == (50, 1000)
    play(state, (1, C))
    assert state.actor == 2 and bounds(state) == (None, None)


def test_short_big_blind_sets_the_call_and_the_minimum_raise() -> None:
    """docs/house-rules.md §4: a big blind all in for 15 makes the bet 15; the minimum raise is one big
    blind over it (to 35)."""
    state = hand(NT, [1000, 15, 1000])
    legal = state.legal_actions()
    assert legal.call_to_chips == 15 and bounds(state) == (35, 1000)


def test_no_limit_has_no_cap() -> None:
    """docs/house-rules.md §4: no cap on raises (here 6 raises in a 3-handed round)."""
    state = hand(NT, [10**6] * 3)
    to = 20
    for _ in range(6):
        seat = state.actor
        assert seat is not None
        to = state.legal_actions().raise_min_to or 0
        state.act(seat, R, to)
    assert to == 20 * 7 and state.raises_left is None


# --------------------------------------------------------------------------- pot-limit


def test_pot_limit_maximum_is_the_pot_after_the_call() -> None:
    """docs/house-rules.md §4: pre-flop, 3-handed, blinds 10/20: the first player may raise to the call
    (20) plus the pot after the call (10 + 20 + 20 = 50): to 70. After that, the small blind
    calls 60 more making the pot 150 + 60... : its maximum is 70 + (10 + 20 + 70 + 60) = 230."""
    state = hand(PT, [1000, 1000, 1000])
    assert bounds(state) == (40, 70)
    play(state, (2, R, 70))
    assert bounds(state) == (120, 230)


def test_pot_limit_bet_after_the_flop_is_at_most_the_pot() -> None:
    """docs/house-rules.md §4: with 60 in the pot and nothing to call, a bet is 20 to 60; facing that
    bet the next seat may raise to 60 + (60 + 60 + 60) = 240."""
    state = hand(PO, [1000, 1000, 1000])
    play(state, (2, C), (0, C), (1, X))
    assert bounds(state) == (20, 60)
    play(state, (0, R, 60))
    assert bounds(state) == (120, 240)


def test_pot_limit_short_stack_goes_all_in_below_the_pot() -> None:
    """docs/house-rules.md §4: a stack below the pot-sized raise may raise all in (to 50)."""
    state = hand(PT, [1000, 1000, 50])
    assert bounds(state) == (40, 50)
    assert state.legal_actions().raise_is_all_in


# --------------------------------------------------------------------------- antes


def test_ante_each_in_a_blind_game() -> None:
    """docs/house-rules.md §4 `ante_kind = "each"`: every seat antes before the blinds."""
    rules = Rules(stakes=Stakes(ante=5), ante_kind=AnteKind.EACH)
    state = hand(NT, [1000, 1000, 1000], rules=rules)
    posts = [(e.seat, e.kind, e.amount_chips) for e in state.events if isinstance(e, ForcedBetPosted)]
    assert posts[:3] == [(0, ForcedBet.ANTE, 5), (1, ForcedBet.ANTE, 5), (2, ForcedBet.ANTE, 5)]
    assert state.committed == [15, 25, 5] and state.pot_chips == 45


def test_big_blind_ante_is_dead_money_in_the_main_pot() -> None:
    """docs/house-rules.md §4 `ante_kind = "big_blind"`: the big blind posts the table's ante (3 x 5);
    it is no one's bet: when everyone folds to the small blind's raise... here the big blind
    folds pre-flop and the raiser takes the blinds and the ante (10 + 20 + 15 = 45 won)."""
    rules = Rules(stakes=Stakes(ante=5), ante_kind=AnteKind.BIG_BLIND)
    state = hand(NT, [1000, 1000, 1000], rules=rules)
    assert state.antes == (0, 15, 0) and state.dead_chips == 15 and state.pot_chips == 45
    play(state, (2, R, 60), (0, F), (1, F))
    assert state.stacks == [990, 965, 1045]


def test_pot_limit_counts_the_dead_ante() -> None:
    """docs/house-rules.md §4: the pot includes every chip in the middle, the big-blind ante too: the
    first raise may go to 20 + (10 + 20 + 15 + 20) = 85."""
    rules = Rules(stakes=Stakes(ante=5), ante_kind=AnteKind.BIG_BLIND)
    state = hand(PT, [1000, 1000, 1000], rules=rules)
    assert bounds(state) == (40, 85)


# --------------------------------------------------------------------------- configuration


def test_games_mix_betting_structures() -> None:
    """docs/house-rules.md §4: a game list mixes fixed, no-limit and pot-limit games; an entry may name
    a game and its `betting` (hold'em pot-limit is PT)."""
    rules = Rules.from_mapping(tomllib.loads('''
        games = ["FT", "NT", {game = "NT", betting = "pot-limit"}, "PO",
                 {game = "FT", betting = "no-limit"}, "F7S"]
        ante_kind = "big_blind"
    '''))
    assert rules.games == (GameCode.HOLDEM, NT, PT, PO, NT, GameCode.STUD)
    assert rules.ante_kind is AnteKind.BIG_BLIND
    assert Rules.from_mapping(rules.to_mapping()) == rules


@pytest.mark.parametrize(("games", "match"), [
    ('[{game = "F7S", betting = "no-limit"}]', "F7S cannot be played no-limit"),
    ('[{game = "FT", betting = "spread"}]', "'betting' must be one of"),
    ('[{game = "FT", limit = "no"}]', "unknown key 'limit'"),
    ('[{betting = "no-limit"}]', "needs a 'game'"),
    ('[3]', "game code or a table"),
])
def test_bad_game_entries_rejected(games: str, match: str) -> None:
    """docs/house-rules.md §4/§10: a bad `games` entry is a ConfigError naming the problem."""
    with pytest.raises(ConfigError, match=match):
        Rules.from_mapping(tomllib.loads(f"games = {games}"))


def test_bad_ante_kind_rejected() -> None:
    """docs/house-rules.md §4: `ante_kind` is "none", "each" or "big_blind"."""
    with pytest.raises(ConfigError, match="ante_kind"):
        Rules.from_mapping({"ante_kind": "button"})


# --------------------------------------------------------------------------- PHH


def _pokerkit_final_stacks(text: str) -> list[list[int]]:
    pokerkit = pytest.importorskip("pokerkit")
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for hh in pokerkit.HandHistory.loads_all(text):
            out.append(list(list(hh)[-1].stacks))
    return out


@pytest.mark.parametrize("ante_kind", ["none", "each", "big_blind"])
@pytest.mark.parametrize("game", ["NT", "PO", "PT"])
def test_phh_for_no_limit_and_pot_limit_loads_in_pokerkit(tmp_path: Path, game: str,
                                                          ante_kind: str) -> None:
    """docs/house-rules.md §4: NL/PL hands are written as standard PHH (``min_bet``, antes; pot-limit
    hold'em as NT with ``_betting = "pot-limit"``); PokerKit replays them to our finishing
    stacks, and our reader replays them too."""
    rules = Rules().with_overrides([f"ante_kind={ante_kind}", "ante=4"])
    for players in (2, 6):
        simulate(game=game, players=players, hands=40, seed=11, out_dir=str(tmp_path),
                 policy="random", rules=rules)
        text = (tmp_path / "hands.phhs").read_text()
        ours = [h["finishing_stacks"] for h in tomllib.loads(text).values()]
        first = next(iter(tomllib.loads(text).values()))
        assert first["variant"] == ("NT" if game == "PT" else game)
        assert first.get("_betting") == ("pot-limit" if game == "PT" else None)
        assert _pokerkit_final_stacks(text) == ours
        for _hand, state, error in iter_replays(loads(text)):
            assert error is None and state is not None and state.variant.code == game


def test_phh_round_trip_keeps_the_dead_ante() -> None:
    """docs/house-rules.md §4: a big-blind ante hand written and read back replays the same."""
    rules = Rules(stakes=Stakes(ante=5), ante_kind=AnteKind.BIG_BLIND)
    state = hand(NT, [1000, 1000, 1000], rules=rules)
    play(state, (2, R, 60), (0, F), (1, F))
    fields = hand_fields(state)
    assert fields["ante_trimming_status"] is False and fields["antes"] == [0, 15, 0]
    [(_, replayed, error)] = list(iter_replays(loads(dumps_hands([fields]))))
    assert error is None and replayed is not None and replayed.stacks == state.stacks
