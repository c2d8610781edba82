"""The hands a seat saw, as text: its events of one hand, one line each (for ``hand_history``).

Built only from the events the dealer sent to this seat, so it holds nothing the seat may not
see: its own hole cards, up cards, boards, actions, shown hands and results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.gateway.textview import GAME_NAMES, action_text, cards, safe_name, street_name
from arena.v1 import arena_pb2 as pb


@dataclass(slots=True)
class HandText:
    """One hand's lines as they come."""

    match_id: str
    hand_id: str
    number: int
    lines: list[str] = field(default_factory=list)
    ended: bool = False


def event_line(event: pb.Event, your_seat: int) -> str | None:
    """The line of one event of a hand (None: an event that adds nothing to read)."""
    kind = event.WhichOneof("payload")
    if kind == "hand_started":
        e = event.hand_started
        seats = ", ".join(f"seat {s.seat} {safe_name(s.name)} {s.stack_chips}" for s in e.seats)
        return (f"hand {e.hand_number} ({event.hand_id}) "
                f"{e.game_code} {GAME_NAMES.get(e.game_code, '')}; button seat {e.button_seat}; "
                f"you are seat {e.your_seat}; stacks: {seats}")
    if kind == "cards_dealt":
        d = event.cards_dealt
        who = "you" if d.seat == your_seat else f"seat {d.seat}"
        shown = [f"up {cards(d.up_cards)}"] if d.up_cards else []
        if d.hole_cards:
            shown.append(f"down {cards(d.hole_cards)}")
        elif d.hole_card_count:
            shown.append(f"{d.hole_card_count} down")
        return f"{street_name(d.street)}: {who} dealt " + ", ".join(shown)
    if kind == "board_dealt":
        b = event.board_dealt
        return f"{street_name(b.street)}: board {cards(b.board_cards)}"
    if kind == "action_taken":
        a = event.action_taken
        return f"{street_name(a.action.street)}: {action_text(a.action)} (stack {a.stack_after_chips}, " \
               f"pot {a.pot_total_after_chips})"
    if kind == "showdown":
        return "showdown: " + "; ".join(
            f"seat {h.seat} shows {cards(h.cards)}"
            + (f" high: {h.high_description}" if h.high_description else "")
            + (f" low: {h.low_description}" if h.low_description else "") for h in event.showdown.hands)
    if kind == "hand_ended":
        e2 = event.hand_ended
        if e2.voided:
            return f"hand voided: {e2.void_reason}"
        return "result: " + ", ".join(f"seat {r.seat} {r.net_chips:+d}" for r in e2.results)
    return None


class HandBook:
    """Every hand of this connection, bounded: the last ``keep`` hands."""

    def __init__(self, keep: int = 200) -> None:
        self.keep = keep
        self.hands: list[HandText] = []
        self.your_seat: dict[str, int] = {}

    def add(self, event: pb.Event) -> None:
        kind = event.WhichOneof("payload")
        if kind == "match_started":
            self.your_seat[event.match_id] = event.match_started.your_seat
            return
        if kind == "hand_started":
            self.your_seat[event.match_id] = event.hand_started.your_seat
            self.hands.append(HandText(event.match_id, event.hand_id, event.hand_started.hand_number))
            del self.hands[:-self.keep]
        hand = next((h for h in reversed(self.hands) if h.hand_id == event.hand_id
                     and h.match_id == event.match_id), None)
        if hand is None:
            return
        line = event_line(event, self.your_seat.get(event.match_id, -1))
        if line is not None:
            hand.lines.append(line)
        if kind == "hand_ended":
            hand.ended = True

    def text(self, which: str) -> str:
        """``current`` (or ``last``): the newest hand; ``all``: a one-line summary of each; a
        number: that hand of the newest match that has it."""
        if not self.hands:
            return "no hand has been dealt to this seat yet\n"
        if which in ("current", "last", ""):
            return _whole(self.hands[-1])
        if which == "all":
            return "".join(f"match {h.match_id} hand {h.number}: {h.lines[-1] if h.ended else 'in play'}\n"
                           for h in self.hands)
        if which.isdigit():
            for hand in reversed(self.hands):
                if hand.number == int(which):
                    return _whole(hand)
            return f"hand {which} is not among the last {len(self.hands)} hands of this seat\n"
        return "say 'current', 'all' or a hand number\n"


def _whole(hand: HandText) -> str:
    state = "" if hand.ended else " (in play)"
    return f"match {hand.match_id}, hand {hand.number}{state}\n" + "".join(
        f"  {line}\n" for line in hand.lines)
