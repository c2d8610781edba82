"""The reply grammar of the text view: one short line parsed into the typed ``Action``.

    fold | check | call | bring-in | complete | bet N | raise N | raise to N

Case, surrounding blanks and one final ``.`` are ignored. ``N`` is a whole number of chips, the
"raise to" total of the current betting round (never "raise by"); ``bet`` and ``raise`` mean the
same action. ``raise`` with no amount is taken only when exactly one amount is legal (fixed
limit), ``complete`` only for the stud completion. Anything else (two actions, a word not in the
grammar, an amount that is not legal now, an action not legal now) is refused with the reason and
the legal replies; nothing is sent to the dealer then.
"""

from __future__ import annotations

import re

from arena.gateway.textview import is_completion, legal_replies
from arena.v1 import arena_pb2 as pb

MAX_REPLY_CHARS = 200
_WORDS = {"fold": pb.ACTION_KIND_FOLD, "check": pb.ACTION_KIND_CHECK,
          "call": pb.ACTION_KIND_CALL, "bring-in": pb.ACTION_KIND_BRING_IN,
          "bringin": pb.ACTION_KIND_BRING_IN, "bring in": pb.ACTION_KIND_BRING_IN}
_RAISE = re.compile(r"(bet|raise|complete)(?: (?:to )?([0-9]{1,18}))?")


class ReplyRefused(ValueError):
    """A text reply that is not exactly one legal action; the message says why and what is legal."""


def _refuse(request: pb.DecisionRequest, why: str) -> ReplyRefused:
    return ReplyRefused(f"{why}. Legal replies: " + "; ".join(legal_replies(request)))


def _legal(request: pb.DecisionRequest, kind: pb.ActionKind.ValueType) -> pb.LegalAction | None:
    return next((a for a in request.legal_actions if a.kind == kind), None)


def parse_reply(text: str, request: pb.DecisionRequest) -> pb.Action:
    """The action ``text`` names for ``request``, or :class:`ReplyRefused`."""
    if len(text) > MAX_REPLY_CHARS:
        raise _refuse(request, f"a reply is one short line (at most {MAX_REPLY_CHARS} characters)")
    words = " ".join(text.strip().lower().removesuffix(".").split())
    if words in _WORDS:
        kind = _WORDS[words]
        if _legal(request, kind) is None:
            return _not_legal(request, kind)
        return pb.Action(kind=kind)
    match = _RAISE.fullmatch(words)
    if match is None:
        raise _refuse(request, f"{text.strip()[:60]!r} is not a reply this grammar knows "
                               "(one of fold, check, call, bring-in, complete, bet N, raise N)")
    word, number = match.group(1), match.group(2)
    legal = _legal(request, pb.ACTION_KIND_RAISE)
    if legal is None:
        raise _refuse(request, f"{word} is not legal now")
    low, high = legal.min_raise_to_chips, legal.max_raise_to_chips
    if word == "complete":
        if not is_completion(request):
            raise _refuse(request, "complete is only the stud completion on third street")
        if number is not None and int(number) != low:
            raise _refuse(request, f"the completion is to {low}, not {number}")
        return pb.Action(kind=pb.ACTION_KIND_RAISE, raise_to_chips=low)
    if number is None:
        if low != high:
            raise _refuse(request, f"'{word}' needs the amount: more than one is legal")
        return pb.Action(kind=pb.ACTION_KIND_RAISE, raise_to_chips=low)
    amount = int(number)
    ok = low <= amount <= high if legal.any_amount else amount in (low, high)
    if not ok:
        allowed = f"from {low} to {high}" if legal.any_amount else " or ".join(
            str(a) for a in sorted({low, high}))
        raise _refuse(request, f"{word} {amount} is not a legal amount: the total this round "
                               f"must be {allowed} (amounts are 'raise to' totals)")
    return pb.Action(kind=pb.ACTION_KIND_RAISE, raise_to_chips=amount)


def _not_legal(request: pb.DecisionRequest, kind: pb.ActionKind.ValueType) -> pb.Action:
    word = pb.ActionKind.Name(kind).removeprefix("ACTION_KIND_").lower().replace("_", "-")
    if kind == pb.ACTION_KIND_CHECK and request.amount_to_call_chips > 0:
        raise _refuse(request, f"check is not legal: you face a bet ({request.amount_to_call_chips}"
                               " to call)")
    if kind == pb.ACTION_KIND_CALL and _legal(request, pb.ACTION_KIND_CHECK) is not None:
        raise _refuse(request, "call is not legal: there is nothing to call, say check")
    raise _refuse(request, f"{word} is not legal now")
