"""Dealer's choice at a live table (docs/house-rules.md §28): which seat chooses before which
orbit, and the game each hand is dealt in. The decision itself is :mod:`arena.match.choose`.

An orbit is ``hands_per_game`` hands (default: the seats at the start). The first orbit's chooser
is the button's seat; the choice then moves on one seat clockwise each orbit (a choice marker,
as card rooms keep, since the dealer button is back on the same seat after a full orbit), passing
over seats that are out of chips. A resumed match chooses again at its first hand: the chooser of
the interrupted orbit chooses for the rest of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.match import messages as m
from arena.match.choose import ChoiceDesk, GameChoice, Orbit, orbit_hands
from arena.match.clock import Now
from arena.match.rotation import next_button


class OrbitChooser:
    """One match's orbits. ``publish`` tells every seat a choice (a ``GameChanged`` event)."""

    def __init__(self, desk: ChoiceDesk, *, seat_count: int,
                 publish: Callable[[m.GameChanged], None], now: Now) -> None:
        self._desk = desk
        self._seat_count = seat_count
        self._length = orbit_hands(desk.rules, seat_count)
        self._publish = publish
        self._now = now
        self._chooser = -1  # the seat that chose the orbit in play (-1: none yet)
        self._entry: int | None = None  # the menu entry dealt now (None: none yet)
        self.choices: list[GameChoice] = []  # every choice of this run, in order

    def _next_chooser(self, button: int, seats: Sequence[int]) -> int:
        if self._chooser < 0:
            return button
        return next_button(self._chooser, seats, self._seat_count)

    def skip(self, index: int, button: int, seats: Sequence[int]) -> None:
        """A resumed match's hand ``index`` (from 0), played before: the choice moved on at
        each orbit's first hand."""
        if index % self._length == 0:
            self._chooser = self._next_chooser(button, seats)

    async def place(self, index: int, button: int, in_play: Sequence[int],
                    seats: tuple[m.SeatInfo, ...], hands_left: int) -> tuple[int, int, int]:
        """Hand ``index``'s (from 0) game entry, its number (from 0) in the orbit and the
        orbit's length; before an orbit's first hand (or a resumed match's first), its choice
        is made and announced (for the orbit's hands, at most ``hands_left``, the match's)."""
        length = self._length
        in_orbit = index % length
        if self._entry is None or in_orbit == 0:
            if in_orbit == 0 or self._chooser < 0:
                self._chooser = self._next_chooser(button, in_play)
            if self._chooser not in in_play:  # out of chips: the next seat in play chooses
                self._chooser = next_button(self._chooser, in_play, self._seat_count)
            hands = min(length - in_orbit, hands_left)
            previous = self._entry
            orbit = Orbit(number=index // length + 1, first_hand=index + 1, hands=hands,
                          button=button, current=previous)
            choice = await self._desk.choose(orbit, self._chooser, seats, self._now)
            self.choices.append(choice)
            self._entry = choice.entry
            games = self._desk.rules.games
            self._publish(m.GameChanged(
                game=games[choice.entry], previous_game=games[previous] if previous is not None
                else "", first_hand_number=index + 1, dealers_choice=True,
                chooser_seat=choice.chooser, automatic=choice.automatic, hands=hands))
        return self._entry, in_orbit, length
