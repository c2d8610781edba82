"""Damaged hand logs, for `arena replay` (docs/faults.md "Damaged logs"): a ``.phhs`` file cut
mid-hand or with garbage appended is read hand by hand, so every intact hand is still checked
and the broken one is named with its line; a log with fewer hands than its results file
counts names the hands it is missing.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from arena.engine.errors import MalformedInput
from arena.engine.phh import PhhHand, hands_of, loads

_HEADER = re.compile(r"\[\s*(\d+)\s*\]\s*(#.*)?")  # a hand's table header in a .phhs file
_AT_LINE = re.compile(r"\(at line (\d+), column \d+\)")


@dataclass(frozen=True, slots=True, kw_only=True)
class Damage:
    """Where a file stops being a hand history."""

    line: int  # the file's line (from 1) where the damage is
    hand: str  # the hand it is in or after (``name[K]``), or the file's name
    problem: str  # what is wrong there, in words


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadLog:
    """A hand log read hand by hand: the hands that could be read, and the damage found."""

    hands: list[PhhHand]
    damage: list[Damage]


def read_log(raw: bytes, *, name: str) -> ReadLog:
    """The hands of a ``.phh`` or ``.phhs`` file's bytes. An intact file reads as
    `arena.engine.phh.loads` reads it; a damaged ``.phhs`` file is read table by table (a hand
    whose lines break part-way is read up to the break, and checked as such)."""
    damage: list[Damage] = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:  # the bytes from the first that is not UTF-8 on are damage
        text = raw[:exc.start].decode("utf-8")
        damage.append(Damage(line=text.count("\n") + 1, hand=name,
                             problem=f"not UTF-8 text at byte {exc.start}"))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        pass
    except RecursionError:
        raise MalformedInput(f"{name}: not a hand history (nested too deeply)") from None
    else:
        if not damage:
            return ReadLog(hands=hands_of(data, name=name), damage=[])
    lines = text.split("\n")
    starts = [(k, found.group(1)) for k, line in enumerate(lines)
              if (found := _HEADER.fullmatch(line.strip()))]
    if not starts:  # a single hand (.phh), or not a hand history at all: one error, as before
        if damage:
            raise MalformedInput(f"{name}: not a hand history ({damage[0].problem})")
        return ReadLog(hands=loads(text, name=name), damage=damage)
    hands: list[PhhHand] = []
    preamble = [line for line in lines[:starts[0][0]] if line.strip() and not line.strip().startswith("#")]
    if preamble:
        damage.append(Damage(line=1, hand=name, problem="text before the first hand's [N] header"))
    for (start, number), (end, _) in zip(starts, [*starts[1:], (len(lines), "")], strict=True):
        hand, broken = _table(lines, start, end, f"{name}[{number}]")
        if hand is not None:
            hands.append(hand)
        if broken is not None:
            damage.append(broken)
    return ReadLog(hands=hands, damage=sorted(damage, key=lambda d: d.line))


def _table(lines: Sequence[str], start: int, end: int,
           label: str) -> tuple[PhhHand | None, Damage | None]:
    """One ``[N]`` table (file lines ``start`` to ``end``, 0-based, header first; ``label``:
    ``name[N]``): its hand, read up to the first line that breaks it, and that break."""
    body = lines[start + 1:end]
    try:
        return PhhHand(label, tomllib.loads("\n".join(body))), None
    except tomllib.TOMLDecodeError as exc:
        found = _AT_LINE.search(str(exc))
        # else at "end of document": the table's last line that is not blank
        at = int(found.group(1)) if found else len("\n".join(body).rstrip().split("\n"))
        problem = _AT_LINE.sub("", str(exc)).strip()
    except RecursionError:
        at, problem = 1, "nested too deeply"
    broken = Damage(line=start + 1 + at, hand=label,
                    problem=f"not a hand history from here on ({problem})")
    try:
        fields = tomllib.loads("\n".join(body[:at - 1]))
    except (tomllib.TOMLDecodeError, RecursionError):
        return None, broken
    return (PhhHand(label, fields) if fields else None), broken


def is_arena_log(hands: Sequence[PhhHand]) -> bool:
    """Whether the hands come from the dealer's log (its hands carry ``_match_id``)."""
    return any("_match_id" in hand.fields for hand in hands)


def cut_short(hand: PhhHand, *, arena_log: bool) -> str | None:
    """Why a hand of the dealer's log (``arena_log``) is incomplete, or None: every hand the
    dealer logs ends with ``_rules``, and a completed one has ``finishing_stacks`` (a file cut
    at a line's end still parses); nothing says what another program's log ends with."""
    fields = hand.fields
    missing = [key for key in ("finishing_stacks", "_rules") if arena_log and key not in fields
               and not (key == "finishing_stacks" and fields.get("_voided"))]
    return (f"{hand.name}: the hand is cut short (no {', '.join(missing)}: every hand the "
            "dealer logs has them)") if missing else None


def missing_hands(hands: Sequence[PhhHand], voided: Sequence[PhhHand],
                  result: dict[str, Any] | None) -> str | None:
    """Why a match's log holds fewer completed hands than its results file counts, naming
    the hands it lacks (by ``_hand`` number; voided hands are in ``.void.phhs``), or None."""
    if result is None:
        return None
    played = result.get("hands_played")
    if not isinstance(played, int) or isinstance(played, bool) or played < 0:
        return None
    completed = [h for h in hands if not h.fields.get("_voided")]
    if len(completed) >= played:
        return None
    present = sorted({n for h in [*hands, *voided] if type(n := h.fields.get("_hand")) is int and n > 0})
    edges = [0, *present, max([played + len(voided), *present]) + 1]
    # The runs of numbers between present ones: as many as the hands, whatever the file claims.
    gone = [(a + 1, b - 1) for a, b in pairwise(edges) if b > a + 1]
    words = [str(a) if a == b else f"{a}-{b}" for a, b in gone[:20]]  # 1, 3-5, 9
    if len(gone) > 20:
        words.append(f"and {sum(b - a + 1 for a, b in gone[20:])} more")
    which = f": missing hand(s) {', '.join(words)}" if gone else ""
    return (f"the results file counts {played} played hand(s), the log holds "
            f"{len(completed)}{which}")
