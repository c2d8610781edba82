"""A bot's faults in plain words, by cause (``arena practice``'s summary): each rejection's reason
with hand and seat, each exception with its traceback, each timeout with its decision and the
time it took; the first few of each in full, then counts."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from arena.match.faults import BotFault, FaultKind

SHOWN = 5  # faults of one cause shown in full before the rest are counted
SHOWN_TRACEBACKS = 3  # exceptions shown with their whole traceback


def where(fault: BotFault) -> str:
    """``hand 4, seat 1, flop (decision practice-h4-d2)``, with what is known."""
    parts = []
    if fault.hand_number:
        parts.append(f"hand {fault.hand_number}")
    if fault.seat >= 0:
        parts.append(f"seat {fault.seat}")
    if fault.street:
        parts.append(fault.street)
    place = ", ".join(parts) or "a decision no longer open"
    return f"{place} (decision {fault.decision_id})"


def _reason_key(text: str) -> str:
    """A reason with its numbers taken out, to count alike reasons together."""
    return re.sub(r"\d+(\.\d+)?", "N", text.split("; allowed:")[0])


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "(no detail sent)"


def _counts(keys: Iterable[str], indent: str) -> list[str]:
    return [f"{indent}{count} x {key}" for key, count in Counter(keys).most_common()]


def many(count: int, one: str, more: str = "") -> str:
    """``1 match``, ``2 matches``: ``more`` the plural when it is not ``one`` + "s"."""
    return f"{count} {one if count == 1 else more or one + 's'}"


def report(faults: Sequence[BotFault], *, name: str = "your bot") -> list[str]:
    """The summary's lines; a single line when there was no fault."""
    rejected = [f for f in faults if f.kind is FaultKind.REJECTED]
    exceptions = [f for f in faults if f.kind is FaultKind.EXCEPTION]
    timeouts = [f for f in faults if f.kind is FaultKind.TIMEOUT]
    fallbacks = [f for f in faults if f.kind is FaultKind.FALLBACK]
    if not faults:
        return [f"faults of {name}: none (no rejection, exception or timeout)"]
    lines = [f"faults of {name}: {many(len(rejected), 'rejected reply', 'rejected replies')}, "
             f"{many(len(exceptions), 'exception')}, {many(len(timeouts), 'timeout')}"]
    if rejected:
        lines.append(f"  rejected replies ({len(rejected)}; the dealer's reason, then where):")
        lines += [f"    {f.detail}\n      at {where(f)}" for f in rejected[:SHOWN]]
        if len(rejected) > SHOWN:
            lines.append(f"    ... {len(rejected) - SHOWN} more; every rejection by reason:")
            lines += _counts((_reason_key(f.detail) for f in rejected), "      ")
        if fallbacks:
            lines.append(f"    your SDK answered {len(fallbacks)} of them with its check/fold "
                         "fallback")
    if exceptions:
        lines.append(f"  exceptions in your bot's code ({len(exceptions)}; each answered by "
                     "check/fold):")
        for f in exceptions[:SHOWN_TRACEBACKS]:
            lines.append(f"    at {where(f)}:")
            lines += [f"      {line}" for line in f.detail.rstrip().splitlines()]
        if len(exceptions) > SHOWN_TRACEBACKS:
            lines.append(f"    ... {len(exceptions) - SHOWN_TRACEBACKS} more; every exception "
                         "by its last line:")
            lines += _counts((_last_line(f.detail) for f in exceptions), "      ")
    if timeouts:
        lines.append(f"  timeouts ({len(timeouts)}; the dealer acted for the seat):")
        lines += [f"    {where(f)}: {f.detail}" for f in timeouts[:SHOWN]]
        if len(timeouts) > SHOWN:
            slowest = max(f.seconds for f in timeouts)
            lines.append(f"    ... {len(timeouts) - SHOWN} more (the slowest open "
                         f"{slowest:.2f} s)")
    return lines
