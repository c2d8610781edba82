"""Side pots from what each seat committed, and their award: hi-lo halves and odd chips."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.engine.events import Pot, PotAwarded, PotShare


def build_pots(committed: Sequence[int], live: Sequence[bool]) -> list[Pot]:
    """Split the chips into a main pot and side pots (docs/house-rules.md §5 "Side pots").

    Each live seat can win from every other seat only as much as it committed itself; the
    chips of folded seats are dead money in the pots they reach. Pots with the same eligible
    seats are merged.
    """
    if len(committed) != len(live):
        raise ValueError("one live flag per seat")
    top = max(committed, default=0)
    # The usual case, no side pots: every live seat that put chips in put in the most. Then
    # one pot holds every chip, for those seats (what the general loop below computes for a
    # single level).
    single = False
    for c, is_live in zip(committed, live, strict=True):
        if is_live and c:
            if c != top:
                single = False
                break
            single = True
    if single:
        eligible = tuple(i for i, c in enumerate(committed) if live[i] and c == top)
        return [Pot(sum(committed), eligible)]
    levels = sorted({c for c, is_live in zip(committed, live, strict=True) if is_live and c > 0})
    if levels and levels[-1] < top:
        levels.append(top)  # folded seats' excess (only after a misdeal-like setup)
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in committed)
        eligible = tuple(i for i, c in enumerate(committed) if live[i] and c >= level)
        if not eligible:
            eligible = pots[-1].eligible if pots else ()
        if pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].amount_chips + amount, eligible)
        elif amount:
            pots.append(Pot(amount, eligible))
        previous = level
    return pots


def with_dead_chips(pots: list[Pot], dead_chips: int, contenders: Sequence[bool]) -> list[Pot]:
    """Dead money (a big-blind ante, docs/house-rules.md §4) is a first pot for every contender, merged
    into the main pot when that has the same players (as PokerKit pots untrimmed antes)."""
    if not dead_chips:
        return pots
    eligible = tuple(i for i, c in enumerate(contenders) if c)
    if pots and pots[0].eligible == eligible:
        pots[0] = Pot(pots[0].amount_chips + dead_chips, eligible)
    else:
        pots.insert(0, Pot(dead_chips, eligible))
    return pots


def split_evenly(amount: int, winners: Sequence[int]) -> tuple[int, ...]:
    """Equal shares; odd chips one each to the first winners left of the button (docs/house-rules.md §5).

    Seats are numbered from the first seat left of the button, so winners are taken in
    ascending seat order.
    """
    if len(winners) == 1:
        return (amount,)
    ordered = sorted(winners)
    share, odd = divmod(amount, len(ordered))
    by_seat = {seat: share + (1 if k < odd else 0) for k, seat in enumerate(ordered)}
    return tuple(by_seat[w] for w in winners)


def award_pot(
    pot_index: int,
    pot: Pot,
    high_values: Sequence[int | None],
    low_values: Sequence[int | None] | None,
    *,
    split_high_low: bool,
) -> list[PotAwarded]:
    """Award one pot. ``*_values`` are per seat (bigger is better; None: no hand / no low).

    With ``split_high_low`` the pot is halved when any eligible seat has a qualifying low,
    the odd chip going to the high half; otherwise the best high hand takes it all. Without
    it, ``low_values`` alone decide (razz) when ``high_values`` are all None.
    """
    eligible = pot.eligible
    if split_high_low and low_values is not None:
        low_winners = tuple(best_seats(low_values, eligible))
        if low_winners:
            low_amount = pot.amount_chips // 2
            high_amount = pot.amount_chips - low_amount
            return [_award(pot_index, PotShare.HIGH, high_amount, eligible, high_values),
                    PotAwarded(pot_index, PotShare.LOW, low_amount, low_winners,
                               split_evenly(low_amount, low_winners))]
        return [_award(pot_index, PotShare.WHOLE, pot.amount_chips, eligible, high_values)]
    values = high_values if low_values is None else low_values
    return [_award(pot_index, PotShare.WHOLE, pot.amount_chips, eligible, values)]


def best_seats(values: Sequence[int | None], seats: Iterable[int]) -> list[int]:
    """The seats of ``seats``, in order, whose value is the best (bigger is better; None: no
    hand, or no qualifying low)."""
    best: int | None = None
    winners: list[int] = []
    for seat in seats:
        value = values[seat]
        if value is None:
            continue
        if best is None or value > best:
            best, winners = value, [seat]
        elif value == best:
            winners.append(seat)
    return winners


def _award(pot_index: int, share: PotShare, amount: int, eligible: Sequence[int],
           values: Sequence[int | None]) -> PotAwarded:
    """The pot share to the best of ``eligible`` (to them all when none has a value)."""
    winners = tuple(best_seats(values, eligible)) or tuple(eligible)
    return PotAwarded(pot_index, share, amount, winners, split_evenly(amount, winners))
