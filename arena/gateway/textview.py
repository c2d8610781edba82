"""A decision request as compact, unambiguous text for a language model (issue 41).

The same layout in every game: a header (game, betting, street, hand), your seat and cards, the
board, one line per seat (stack, bet this round, chips in the hand, up cards, hidden cards,
status), the pots, the actions so far by street, what it costs to call, the legal replies with
their exact amounts in the reply grammar (:mod:`arena.gateway.replytext`), and the clock.

Amounts are "raise to" totals of the current betting round, as everywhere in the arena. Bot
names come from other bots: they are shown quoted, cut to 24 printable characters, so that a
name cannot pose as a line of the view (or as an instruction to the model).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.v1 import arena_pb2 as pb

GAME_NAMES = {
    "FT": "fixed-limit Texas hold'em", "NT": "no-limit Texas hold'em",
    "PT": "pot-limit Texas hold'em", "FO/8": "fixed-limit Omaha hi-lo, 8 or better",
    "PO": "pot-limit Omaha", "FR": "razz (seven card stud, ace-to-five low)",
    "F7S": "seven card stud", "F7S/8": "seven card stud hi-lo, 8 or better",
}
BETTING = {pb.BETTING_STRUCTURE_UNSPECIFIED: "fixed limit", pb.BETTING_STRUCTURE_FIXED_LIMIT:
           "fixed limit", pb.BETTING_STRUCTURE_NO_LIMIT: "no limit",
           pb.BETTING_STRUCTURE_POT_LIMIT: "pot limit"}
STATUS = {pb.SEAT_STATUS_ACTIVE: "in", pb.SEAT_STATUS_FOLDED: "folded",
          pb.SEAT_STATUS_ALL_IN: "all-in", pb.SEAT_STATUS_ABSENT: "absent (auto check/fold)",
          pb.SEAT_STATUS_OUT: "out", pb.SEAT_STATUS_UNSPECIFIED: "?"}
POSTS = {pb.ACTION_KIND_POST_ANTE: "antes", pb.ACTION_KIND_POST_SMALL_BLIND: "posts small blind",
         pb.ACTION_KIND_POST_BIG_BLIND: "posts big blind", pb.ACTION_KIND_BRING_IN: "brings in"}
NAME_CHARS = 24


def street_name(street: pb.Street.ValueType) -> str:
    return pb.Street.Name(street).removeprefix("STREET_").lower()


def safe_name(name: str) -> str:
    """A bot's display name as a quoted string of printable characters, at most 24 of them."""
    kept = "".join(c if c.isprintable() and c not in "\"\\" else "?" for c in name)
    return '"' + (kept[:NAME_CHARS] + "…" if len(kept) > NAME_CHARS else kept) + '"'


def cards(items: Iterable[str]) -> str:
    return "[" + " ".join(items) + "]"


def is_completion(request: pb.DecisionRequest) -> bool:
    """True when a RAISE now is the stud completion (third street, nothing above the
    bring-in yet): the reply ``complete``."""
    return (request.street == pb.STREET_THIRD and request.stakes.small_bet_chips > 0
            and request.current_bet_chips < request.stakes.small_bet_chips)


def raise_word(request: pb.DecisionRequest) -> str:
    """``bet`` when no one has bet this round (blinds count as bets), else ``raise``."""
    return "bet" if request.current_bet_chips == 0 else "raise"


def legal_replies(request: pb.DecisionRequest) -> list[str]:
    """Each legal action as the reply that takes it, with what it costs."""
    you = _you(request)
    bet_now = you.bet_chips if you is not None else 0
    out = []
    for legal in request.legal_actions:
        all_in = " (all-in)" if legal.is_all_in else ""
        if legal.kind == pb.ACTION_KIND_FOLD:
            out.append("fold")
        elif legal.kind == pb.ACTION_KIND_CHECK:
            out.append("check")
        elif legal.kind == pb.ACTION_KIND_CALL:
            out.append(f"call (puts in {legal.min_raise_to_chips - bet_now} more, to "
                       f"{legal.min_raise_to_chips}){all_in}")
        elif legal.kind == pb.ACTION_KIND_BRING_IN:
            out.append(f"bring-in (posts {legal.min_raise_to_chips})")
        elif legal.kind == pb.ACTION_KIND_RAISE:
            out += _raise_replies(request, legal, all_in)
        else:  # a kind newer than this grammar: named, to be sent as a JSON action_reply
            out.append(f"{pb.ActionKind.Name(legal.kind)} (not in the text grammar: send an "
                       "action_reply)")
    return out


def _raise_replies(request: pb.DecisionRequest, legal: pb.LegalAction, all_in: str) -> list[str]:
    word = raise_word(request)
    low, high = legal.min_raise_to_chips, legal.max_raise_to_chips
    if legal.any_amount and high > low:
        return [f"{word} N, any whole N from {low} to {high} (the total of this round; "
                f"{high} is {'all-in' if legal.is_all_in else 'the most'})"]
    first = (f"complete (to {low})" if is_completion(request) and low == request.stakes.small_bet_chips
             else f"{word} {low}")
    if high == low:
        return [first + all_in]
    return [first, f"{word} {high}{all_in}"]


def _you(request: pb.DecisionRequest) -> pb.SeatState | None:
    return next((s for s in request.seats if s.seat == request.your_seat), None)


def action_text(record: pb.ActionRecord) -> str:
    kind = record.kind
    if kind in POSTS:
        text = f"{POSTS[kind]} {record.amount_chips}"
    elif kind == pb.ACTION_KIND_FOLD:
        text = "folds"
    elif kind == pb.ACTION_KIND_CHECK:
        text = "checks"
    elif kind == pb.ACTION_KIND_CALL:
        text = f"calls {record.amount_chips} (to {record.round_bet_chips})"
    elif kind == pb.ACTION_KIND_RAISE:
        text = f"raises to {record.raise_to_chips}"
    else:
        text = pb.ActionKind.Name(kind)
    if record.is_all_in:
        text += ", all-in"
    if record.automatic:
        reason = "timed out" if record.automatic_reason == pb.AUTOMATIC_REASON_TIMEOUT else "absent"
        text += f" [by the dealer: {reason}]"
    return f"seat {record.seat} {text}"


def _actions(records: Sequence[pb.ActionRecord]) -> list[str]:
    lines: list[str] = []
    street: pb.Street.ValueType | None = None
    for record in records:
        if record.street != street:
            street = record.street
            lines.append(f"  {street_name(street)}: ")
        else:
            lines[-1] += "; "
        lines[-1] += action_text(record)
    return lines or ["  none yet"]


def _seat_line(request: pb.DecisionRequest, seat: pb.SeatState) -> str:
    mark = " (you)" if seat.seat == request.your_seat else ""
    button = " button" if seat.seat == request.button_seat else ""
    parts = [f"  seat {seat.seat}{mark}{button} {safe_name(seat.name)}: stack {seat.stack_chips}",
             f"bet this round {seat.bet_chips}", f"in the hand {seat.total_committed_chips}"]
    if seat.up_cards:
        parts.append(f"up {cards(seat.up_cards)}")
    if seat.hole_card_count:
        parts.append(f"{seat.hole_card_count} down")
    parts.append(STATUS.get(seat.status, "?"))
    return ", ".join(parts)


def render(request: pb.DecisionRequest) -> str:
    """The whole text view of ``request``."""
    you = _you(request)
    game = GAME_NAMES.get(request.game_code, request.game_code)
    lines = [
        f"decision {request.decision_id} | match {request.match_id} | hand {request.hand_number} "
        f"(hand {request.game_hand_number} of {request.hands_per_game} of this game)",
        f"game: {request.game_code} {game}, {BETTING.get(request.betting, 'fixed limit')}",
        f"street: {street_name(request.street)}",
        f"you: seat {request.your_seat}",
        f"your cards: down {cards(request.hole_cards)}"
        + (f" up {cards(you.up_cards)}" if you is not None and you.up_cards else ""),
        f"board: {cards(request.board_cards)}",
        "seats:", *(_seat_line(request, s) for s in request.seats),
        f"pot: {request.pot_total_chips} in all"
        + "".join(f"; {'main' if k == 0 else f'side {k}'} pot {p.amount_chips} for seats "
                  f"{','.join(map(str, p.eligible_seats))}" for k, p in enumerate(request.pots)),
        "actions so far:", *_actions(request.actions),
        f"current bet {request.current_bet_chips}; you have bet {you.bet_chips if you else 0} this "
        f"round; to call: {request.amount_to_call_chips}",
        "legal replies (amounts are the total of this betting round):",
        *(f"  {reply}" for reply in legal_replies(request)),
        f"clock: {request.decision_time_left_seconds:.1f} s for this decision, then "
        f"{request.time_bank_left_seconds:.1f} s of match time bank; after that the dealer "
        "checks or folds for you",
    ]
    return "\n".join(lines) + "\n"
