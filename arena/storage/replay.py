"""`arena replay`: re-play hand histories through the engine and report the first difference."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

from arena.engine.cards import pretty_card
from arena.engine.errors import ArenaError
from arena.engine.events import (
    ActionTaken,
    BoardDealt,
    ForcedBetPosted,
    HandShown,
    HoleCardsDealt,
    PotAwarded,
    UncalledBetReturned,
)
from arena.engine.phh import PhhHand, iter_replays, load_file
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.storage.matchlog import match_seed_for
from arena.storage.verify import verify_hand


def _select(hands: list[PhhHand], hand_id: str | None) -> list[PhhHand]:
    if hand_id is None:
        return hands
    chosen = [h for h in hands if str(h.fields.get("_hand_id", h.fields.get("_hand", ""))) == hand_id
              or h.name.endswith(f"[{hand_id}]")]
    return chosen


def describe(state: HandState, players: Sequence[str]) -> list[str]:
    """The hand for people: cards with suit symbols, actions by street, pots and winners."""
    lines: list[str] = []
    street = -1
    names = list(players)
    for event in state.events:
        if isinstance(event, HoleCardsDealt | BoardDealt | ActionTaken) and event.street != street:
            street = event.street
            lines.append(f"  -- {state.variant.streets[street].name}")
        if isinstance(event, ForcedBetPosted):
            lines.append(f"    {names[event.seat]} posts {event.kind} {event.amount_chips}")
        elif isinstance(event, UncalledBetReturned):
            lines.append(f"    {event.amount_chips} uncalled returned to {names[event.seat]}")
        elif isinstance(event, HoleCardsDealt):
            cards = " ".join(pretty_card(c) if up else f"[{pretty_card(c)}]"
                             for c, up in zip(event.cards, event.is_up, strict=True))
            lines.append(f"    {names[event.seat]} dealt {cards}")
        elif isinstance(event, BoardDealt):
            label = "common card" if event.is_stud_common_card else "board"
            lines.append(f"    {label}: {' '.join(pretty_card(c) for c in event.cards)}")
        elif isinstance(event, ActionTaken):
            amount = f" to {event.to_chips}" if event.kind.value in ("raise", "call", "bring_in") else ""
            flags = " (all in)" if event.is_all_in else ""
            flags += " (automatic)" if event.is_automatic else ""
            lines.append(f"    {names[event.seat]} {event.kind.value}{amount}{flags}")
        elif isinstance(event, HandShown):
            lines.append(f"    {names[event.seat]} shows {' '.join(pretty_card(c) for c in event.cards)}")
        elif isinstance(event, PotAwarded):
            won = ", ".join(f"{names[w]} {a}"
                            for w, a in zip(event.winners, event.amounts_chips, strict=True))
            lines.append(f"  pot {event.pot_index + 1} ({event.share.value}, {event.amount_chips}): {won}")
    return lines


def _checked(path: str, hands: list[PhhHand], rules: Rules,
             out: TextIO) -> Iterator[tuple[PhhHand, HandState | None, str | None]]:
    """Arena match logs whose seed has been revealed are re-dealt and verified card by card;
    other hand histories are replayed from the cards they list."""
    seed = match_seed_for(Path(path))
    if seed is None:
        yield from iter_replays(hands, rules)
        return
    out.write(f"verifying {path} against the match seed\n")
    for hand in hands:
        state, mismatch = verify_hand(hand, seed, rules)
        yield hand, state, None if mismatch is None else f"mismatch {mismatch}"


def replay_paths(paths: Sequence[str], *, rules: Rules, show: bool, hand_id: str | None,
                 out: TextIO) -> int:
    failures = 0
    replayed = 0
    for path in paths:
        try:
            hands = _select(load_file(path), hand_id)
            checked = list(_checked(path, hands, rules, out))
        except (OSError, ArenaError) as exc:
            out.write(f"FAIL {path}: {exc}\n")
            failures += 1
            continue
        for hand, state, error in checked:
            replayed += 1
            if error is not None:
                failures += 1
                out.write(f"FAIL {error}\n")
                continue
            assert state is not None
            out.write(f"ok   {hand.name}: {hand.fields['variant']} final stacks {state.stacks}\n")
            if show:
                players = hand.fields.get("players") or [f"p{i + 1}" for i in range(state.seat_count)]
                for line in describe(state, players):
                    out.write(line + "\n")
    out.write(f"{replayed - failures} of {replayed} hands replayed to their logged stacks\n"
              if failures == 0 else f"{failures} problem(s) in {replayed} hands\n")
    return 1 if failures else 0
