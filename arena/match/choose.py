"""Dealer's choice (docs/house-rules.md §28): before each orbit one seat chooses the game from the
match's menu (its `games`), in a decision of its own with its own clock (`choice_seconds`, no time
bank). A seat that is absent, or silent past the limit, gets the default: the menu's next game
after the current one. Illegal answers are refused in words and the seat may answer again while
its time lasts; a strategy over CHOOSE_GAME actions is drawn like any other (§19).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import trio

from arena.engine.actions import Action, ActionKind
from arena.engine.errors import ArenaError, IllegalAction, MalformedAction
from arena.engine.rules import Rules
from arena.engine.strategy import (
    MAX_STRATEGY_ACTIONS,
    SUM_TOLERANCE,
    Strategy,
    WeightedAction,
    draw_index,
    draw_uniform,
)
from arena.match import messages as m
from arena.match.clock import DecisionClock, Now
from arena.match.faults import CloseReason
from arena.match.lobby import Lobby, Presence
from arena.match.records import TableStats
from arena.match.strategy_draw import StrategyDrawer
from arena.match.timer import DecisionTimer

CHOICE_STREET = "game choice"  # the request's street (STREET_GAME_CHOICE on the wire)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameChoice:
    """One orbit's choice: ``entry``, the index of the chosen game in the rules' `games`;
    ``chooser``, the seat that chose (or was chosen for); ``automatic``, why the dealer chose for
    it (None: it chose itself); ``weights``, the strategy it declared ((game, weight) per
    entry; empty when it answered with one action)."""

    entry: int
    chooser: int
    automatic: m.AutoReason | None
    weights: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Orbit:
    """An orbit about to be chosen for: its number (from 1), its first hand's number (from 1),
    how many hands it deals, its button seat, and the menu entry dealt so far (None: none)."""

    number: int
    first_hand: int
    hands: int
    button: int
    current: int | None


def default_entry(rules: Rules, current: int | None) -> int:
    """docs/house-rules.md §28: the menu's next game after the current one (the first before any
    game has been dealt)."""
    return 0 if current is None else (current + 1) % len(rules.games)


def orbit_hands(rules: Rules, starting_seats: int) -> int:
    """docs/house-rules.md §28: the hands of one orbit, ``hands_per_game`` (default: the seats at
    the start)."""
    return rules.hands_per_game or starting_seats


class ChoiceDesk:
    """Opens and closes one table's dealer's-choice decisions; shares the table's lobby,
    presences, statistics, timer and strategy key with its :class:`~arena.match.decide.DecisionDesk`."""

    def __init__(self, *, match_id: str, rules: Rules, lobby: Lobby, presences: list[Presence],
                 stats: TableStats, timer: DecisionTimer, drawer: StrategyDrawer) -> None:
        self._match_id = match_id
        self.rules = rules
        self._lobby = lobby
        self._presences = presences
        self.stats = stats
        self._timer = timer
        self._drawer = drawer

    def request(self, orbit: Orbit, chooser: int, seats: tuple[m.SeatInfo, ...],
                clock: DecisionClock, now: float) -> m.Prompt:
        """The chooser's decision request for ``orbit``, its clock as of ``now``."""
        rules = self.rules
        default = default_entry(rules, orbit.current)
        wall = time.time()
        return m.Prompt(
            match_id=self._match_id, hand_id=f"{self._match_id}-o{orbit.number}",
            decision_id=f"{self._match_id}-h{orbit.first_hand}-choice",
            game=rules.games[default], street=CHOICE_STREET, hand_number=orbit.first_hand,
            game_hand_number=0, hands_per_game=orbit.hands, button_seat=orbit.button,
            seat=chooser, seats=seats, hole_cards=(), board=(), pots=(), pot_total_chips=0,
            actions=(), current_bet_chips=0, to_call_chips=0,
            legal=(m.LegalChoice(kind=ActionKind.CHOOSE_GAME, min_to_chips=0, max_to_chips=0,
                                 is_all_in=False, games=tuple(str(g) for g in rules.games)),),
            stakes=rules.stakes_for(default), bet_size_chips=0, raises_left=0,
            decision_time_left_seconds=clock.decision_left(now),
            time_bank_left_seconds=0.0, deadline_unix_seconds=wall + clock.total_left(now),
            sent_unix_seconds=wall)

    async def choose(self, orbit: Orbit, chooser: int, seats: tuple[m.SeatInfo, ...],
                     now: Now) -> GameChoice:
        """The chooser's choice for ``orbit``, or the default for it (absent or too late)."""
        rules = self.rules
        presence = self._presences[chooser]
        if not presence.is_connected:
            self.stats.absent_actions += 1
            return GameChoice(entry=default_entry(rules, orbit.current), chooser=chooser,
                              automatic=m.AutoReason.ABSENT)
        opened = now()
        clock = DecisionClock(opened_at=opened, decision_seconds=rules.choice_time_seconds,
                              bank_seconds=0.0)
        prompt = self.request(orbit, chooser, seats, clock, opened)
        self.stats.prompts += 1
        decision = self._lobby.open(presence, prompt, clock, now)
        replies = decision.replies
        self._timer.arm(replies)
        told = False  # whether the chooser knows the decision is over (answered or timed out)
        try:
            while True:
                reply = await replies.get()
                if reply is None:
                    break
                try:
                    entry, weights = self._judge(orbit, reply)
                except ArenaError as exc:
                    self.stats.rejected += 1
                    presence.deliver(m.Rejection(decision_id=reply.decision_id, error=exc,
                                                 reply=reply, retry_allowed=True,
                                                 time_left_seconds=clock.total_left(now())))
                    continue
                elapsed = now() - opened
                self.stats.answered += 1
                self.stats.answer_seconds.append(elapsed)
                if weights:
                    self.stats.strategy_replies += 1
                told = True
                return GameChoice(entry=entry, chooser=chooser, automatic=None, weights=weights)
            self.stats.lateness_seconds.append(trio.current_time() - clock.deadline)
            reason = m.AutoReason.TIMEOUT if presence.is_connected else m.AutoReason.ABSENT
            if reason is m.AutoReason.TIMEOUT:
                self.stats.timeouts += 1
            else:
                self.stats.absent_actions += 1
            entry = default_entry(rules, orbit.current)
            open_seconds = now() - opened
            self._lobby.closed_unanswered(
                presence, prompt, CloseReason.TIMEOUT, ActionKind.CHOOSE_GAME, open_seconds,
                timeout_detail=f"no game chosen within {open_seconds:.2f} s; the dealer chose "
                f"{rules.games[entry]} (the menu's next game) for the seat"
                if reason is m.AutoReason.TIMEOUT else "")
            told = True
            return GameChoice(entry=entry, chooser=chooser, automatic=reason)
        finally:
            self._timer.disarm()
            if not told:  # the match was stopped while the seat was choosing
                self._lobby.closed_unanswered(presence, prompt, CloseReason.HAND_STOPPED, None,
                                              now() - opened)
            self._lobby.close(decision, "the seat has chosen")
            self.stats.rejected += decision.refused

    def _judge(self, orbit: Orbit, reply: m.Reply) -> tuple[int, tuple[tuple[str, float], ...]]:
        """The menu entry a reply chooses (a strategy's drawn one) and the strategy's weights;
        raises an :class:`ArenaError` naming what is wrong for anything else."""
        menu = [str(g) for g in self.rules.games]
        if reply.strategy is not None and not reply.problem:
            weights = self._strategy(reply, menu)
            # Hand 0 is no hand: the draw of orbit k is action k of "hand 0" (§28).
            drawn = draw_index(Strategy(entries=tuple(
                WeightedAction(action=Action(ActionKind.CHOOSE_GAME), weight=w) for _, w in weights)),
                draw_uniform(self._drawer.key, 0, orbit.number))
            return menu.index(weights[drawn][0]), weights
        if reply.kind is None:
            raise MalformedAction(reply.problem or "no action")
        if reply.kind is not ActionKind.CHOOSE_GAME:
            raise IllegalAction(f"{reply.kind.value} is not legal now: seat {reply.seat} "
                                f"chooses the game of the coming orbit (CHOOSE_GAME with one "
                                f"of {', '.join(menu)})")
        return _on_menu(reply.game, menu, "CHOOSE_GAME"), ()

    @staticmethod
    def _strategy(reply: m.Reply, menu: list[str]) -> tuple[tuple[str, float], ...]:
        """A strategy over CHOOSE_GAME actions checked as §19 checks any (distinct legal actions,
        finite weights >= 0 summing to one)."""
        entries = reply.strategy or ()
        if not entries:
            raise MalformedAction("the strategy lists no action")
        if len(entries) > MAX_STRATEGY_ACTIONS:
            raise MalformedAction(f"the strategy lists {len(entries)} actions; at most "
                                  f"{MAX_STRATEGY_ACTIONS}")
        games = reply.strategy_games or ("",) * len(entries)
        out: list[tuple[str, float]] = []
        for k, ((kind, _, weight), game) in enumerate(zip(entries, games, strict=True)):
            where = f"strategy entry {k + 1}"
            if type(weight) is not float and type(weight) is not int:
                raise MalformedAction(f"{where}: the weight is not a number")
            weight = float(weight)
            if not math.isfinite(weight) or weight < 0.0:
                raise MalformedAction(f"{where}: the weight {weight} is not a finite number >= 0")
            if kind is not ActionKind.CHOOSE_GAME:
                shown = kind.value if kind is not None else "no action kind"
                raise IllegalAction(f"{where}: {shown} is not legal now (legal: choose_game)")
            _on_menu(game, menu, where)
            if any(game == g for g, _ in out):
                raise MalformedAction(f"{where}: choose_game {game} is listed twice")
            out.append((game, weight))
        total = math.fsum(w for _, w in out)
        if abs(total - 1.0) > SUM_TOLERANCE:
            raise MalformedAction(f"the strategy's weights sum to {total!r}, not 1 "
                                  f"(within {SUM_TOLERANCE:g})")
        return tuple(out)


def _on_menu(game: str, menu: list[str], where: str) -> int:
    if not game:
        raise MalformedAction(f"{where}: no game named; choose one of {', '.join(menu)}")
    if game not in menu:
        raise IllegalAction(f"{where}: {game} is not on this match's menu; choose one of "
                            f"{', '.join(menu)}")
    return menu.index(game)
