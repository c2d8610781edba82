"""What went wrong with a bot's answers, as values: the notice a bot gets when a decision it holds
has closed (:class:`DecisionClosed`), and the faults its author and the organizer are told of
(:class:`BotFault`, handed to :attr:`arena.match.lobby.Lobby.fault_observers`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from arena.engine.actions import ActionKind


class CloseReason(StrEnum):
    """Why a decision closed without an accepted reply."""

    TIMEOUT = "timeout"  # decision time and time bank ran out; the dealer acted for the seat
    HAND_STOPPED = "hand stopped"  # the hand or match stopped first (voided, shutdown)


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionClosed:
    """Sent to a bot when the dealer stops waiting for one of its decisions.

    Fields: ``decision_id``, ``match_id`` and ``hand_number`` (1-based) name the decision;
    ``seat`` is the bot's seat (as in its request); ``reason`` why it closed; ``action`` what
    the dealer did for the seat (None when it did not act); ``open_seconds`` how long the
    decision was open by the table's clock."""

    decision_id: str
    match_id: str
    hand_number: int
    seat: int
    reason: CloseReason
    action: ActionKind | None
    open_seconds: float


class FaultKind(StrEnum):
    REJECTED = "rejected"  # the dealer refused a reply (it changed nothing)
    TIMEOUT = "timeout"  # no accepted reply before the deadline: the dealer acted
    EXCEPTION = "exception"  # the bot's code failed: its SDK answered with check/fold
    FALLBACK = "fallback"  # its SDK answered with check/fold after a rejection


@dataclass(frozen=True, slots=True, kw_only=True)
class BotFault:
    """One fault of one bot, with where it happened.

    Fields: ``bot_id``; ``kind``; ``decision_id``; ``match_id`` and ``hand_number`` (0 when the
    decision is no longer known, e.g. a reply to a closed one); ``seat`` (-1 when unknown);
    ``street`` (empty when unknown); ``detail``, the reason in plain words (a rejection's
    message, a fallback's exception with its traceback as the SDK reported it, at most
    :data:`MAX_DETAIL_CHARS`); ``seconds``, how long the decision had been open (timeouts)."""

    bot_id: str
    kind: FaultKind
    decision_id: str
    match_id: str = ""
    hand_number: int = 0
    seat: int = -1
    street: str = ""
    detail: str = ""
    seconds: float = 0.0


MAX_DETAIL_CHARS = 2000


def bounded_detail(text: str) -> str:
    """A fault's detail as kept: printable text (newlines and tabs kept), at most
    :data:`MAX_DETAIL_CHARS`, the end kept (a traceback's last lines say the most)."""
    clean = "".join(c if c.isprintable() or c in "\n\t" else "?" for c in text[-4 * MAX_DETAIL_CHARS:])
    if len(clean) > MAX_DETAIL_CHARS:
        clean = "..." + clean[-(MAX_DETAIL_CHARS - 3):]
    return clean
