"""Live tables for spectators: the public picture of each running table, pushed over SSE.

The dealer calls :meth:`SpectatorHub.event_watched` once for every event (as a seat that does
not own it is sent it, whether or not any seat is: bots may take requests and results only) and
:meth:`SpectatorHub.decision_opened` for every decision. Both only update small per-table
dicts (never a hole card: a ``CardsDealt`` is read for its up cards and counts only), so they
cost the dealer next to nothing. A flusher task sends each changed table at most every
``interval_seconds`` to every spectator through a bounded queue; a spectator whose queue is
full is dropped, so a slow reader can never hold up the dealer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.engine.cards import RANKS, format_card
from arena.engine.describe_wild import LOW_HOLE_SHOWDOWNS, WILD_SHOWDOWNS, seat_wild
from arena.engine.errors import ArenaError
from arena.engine.games import ALL_VARIANTS
from arena.engine.rules import Rules
from arena.match import messages as m
from arena.match.choose import CHOICE_STREET
from arena.web.choice import choice_view, covers

log = logging.getLogger("arena.web")

QUEUE_ITEMS = 256
MAX_SPECTATORS = 64
ENDED = "event: ended\ndata: {}\n\n"  # the last message of every stream when the server stops
RECENT_ACTIONS = 8
HIDDEN = "??"  # a card not shown (as the hand replayer shows one)


def _cards(cards: tuple[int, ...]) -> list[str]:
    return [format_card(c) for c in cards]


@dataclass
class _Table:
    match_id: str
    last_sequence: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    rules: Rules = field(default_factory=Rules)  # the match's (wild ranks: §23, §24)
    # What the dealer told since the state was last brought up to date (by a flush or a
    # snapshot), in order: the dealer's thread only appends; the state is worked out when it
    # is sent, from the last hand started on (what came before it is moot by then).
    pending: list[m.Notice | m.Prompt] = field(default_factory=list)
    hand_start: int = -1  # the index in ``pending`` of the last HandStarted
    # Duplicate copies: the match's copies of its deal set, the deal of the hand last started
    # here and whether this copy has ended it (the hub counts each deal's ends over all copies).
    copies: int = 1
    deal_id: str = ""
    deal_ended: bool = False
    choice: dict[str, Any] | None = None  # dealer's choice (§28): the last orbit's, as shown


class _Spectator:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_ITEMS)
        self.dropped = False

    def offer(self, text: str) -> bool:
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.dropped = True
            return False
        return True


def _without_cards(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with every card of the deal hidden (``??``): the board, up cards, the showdown."""
    hidden = dict(state)
    hidden["board"] = [HIDDEN] * len(state.get("board", []))
    hidden["seats"] = [{**seat, "up": [HIDDEN] * len(seat.get("up", []))}
                       for seat in state.get("seats", [])]
    hidden["seats"] = [{**seat, "exchange": {**seat["exchange"],
                                             "gave": [HIDDEN] * len(seat["exchange"]["gave"]),
                                             "got": [HIDDEN] * len(seat["exchange"]["got"])}}
                       if seat.get("exchange") else seat for seat in hidden["seats"]]
    hidden["shown"] = [{"seat": h["seat"], "cards": [HIDDEN] * len(h["cards"]), "high": "",
                        "low": "", "wild": []} for h in state.get("shown", [])]
    hidden["cards_withheld"] = "another copy of this deal has not played this hand yet"
    return hidden


def _wild_rules(rules: Mapping[str, str]) -> Rules:
    """The match's wild-card keys from ``MatchStarted.rules`` (JSON texts); the defaults when
    they are missing or unreadable (only the marks shown depend on them)."""
    try:
        wild = json.loads(rules.get("wild_ranks", '"2"'))
        ace_high = json.loads(rules.get("low_hole_ace_high", "true"))
        if isinstance(wild, str) and isinstance(ace_high, bool):
            return Rules.from_mapping({"wild_ranks": wild[:13], "low_hole_ace_high": ace_high})
    except (ValueError, ArenaError):
        pass
    return Rules()


def _game_words(game: str, rules: Rules) -> dict[str, Any]:
    """A hand's game for spectators: its name, and the ranks wild for every seat (wild-card
    stud, §23; in Low Hole each seat's own are its secret until the showdown, §24)."""
    variant = ALL_VARIANTS.get(game)
    if variant is None:
        return {"game_name": game, "wild": [], "wild_text": ""}
    wild: list[str] = []
    text = ""
    if variant.showdown in WILD_SHOWDOWNS:
        wild = [RANKS[r] for r in sorted(rules.wild_rank_set)]
        text = f"wild: {' '.join(wild)}" if wild else ""
    elif variant.showdown in LOW_HOLE_SHOWDOWNS:
        text = "each player's lowest down card is wild for that player"
    return {"game_name": variant.name, "wild": wild, "wild_text": text}


def _shown_wild(game: str, rules: Rules, hand: m.ShownHand, seat: dict[str, Any] | None) -> list[str]:
    """The wild cards of a hand shown at the showdown (in Low Hole its own, found from its
    down cards: the shown cards that were not up)."""
    variant = ALL_VARIANTS.get(game)
    if variant is None or not (variant.showdown in WILD_SHOWDOWNS or variant.showdown in LOW_HOLE_SHOWDOWNS):
        return []
    up = set(seat.get("up", [])) if seat is not None else set()
    names = _cards(hand.cards)
    wild = seat_wild(variant, rules, hand.cards, [n in up for n in names])
    ranks = wild.high | wild.low
    return [n for n, c in zip(names, hand.cards, strict=True) if c >> 2 in ranks]


def _rest_of(queue: asyncio.Queue[str | None], first: str | None) -> str:
    """``first`` and all that waits behind it, as one write: a flush queues a message per
    changed table, and each write goes through every middleware of the app. ``None`` is a
    wake-up (the spectator was dropped, or the server stops), not a message."""
    texts = [] if first is None else [first]
    while not queue.empty():
        text = queue.get_nowait()
        if text is not None:
            texts.append(text)
    return "".join(texts)


class SpectatorHub:
    """Public live state of every table, and the spectators following them."""

    def __init__(self, *, interval_seconds: float = 0.2) -> None:
        self.interval_seconds = interval_seconds
        self.tables: dict[str, _Table] = {}
        self._dirty: set[str] = set()
        self._spectators: set[_Spectator] = set()
        self.dropped_spectators = 0
        self._closed = False  # the web server is stopping: every stream ends
        self._deal_ends: Counter[str] = Counter()  # deal id -> copies that have ended its hand

    # ------------------------------------------------------------ fed by the dealer

    def event_watched(self, notice: m.Notice) -> None:
        """One event (each is told once; one told again is not read again, by its sequence
        number), read when the table is next sent (:meth:`flush`); nothing once the hub is
        closed."""
        if self._closed:
            return  # no flush will read it
        table = self.tables.get(notice.match_id)
        if table is None:
            table = self.tables[notice.match_id] = _Table(notice.match_id)
        if notice.sequence <= table.last_sequence:
            return
        table.last_sequence = notice.sequence
        payload = notice.payload
        kind = type(payload)
        if isinstance(payload, m.HandStarted):
            table.hand_start = len(table.pending)
            table.deal_id, table.deal_ended = payload.deal_id, False
        elif (kind is m.HandEnded or kind is m.HandSummary) and table.deal_id \
                and not table.deal_ended:
            table.deal_ended = True
            self._deal_ends[table.deal_id] += 1
        elif isinstance(payload, m.MatchStarted):
            table.copies = max(1, payload.duplicate_copies)
        table.pending.append(notice)
        self._dirty.add(table.match_id)

    def decision_opened(self, prompt: m.Prompt) -> None:
        """Whose turn it is and the decision clock (the prompt's cards are never read)."""
        table = self.tables.get(prompt.match_id)
        if table is not None and not self._closed:
            table.pending.append(prompt)
            self._dirty.add(table.match_id)

    def _catch_up(self, table: _Table) -> None:
        """Bring the table's state up to date with what it was told. A hand started resets
        everything a hand shows, so of what came before the last one only the match's start
        (the seats' names) and the last decision's time bank are read."""
        pending, start = table.pending, max(table.hand_start, 0)
        if not pending:
            return
        table.pending, table.hand_start = [], -1
        try:
            bank: m.Prompt | None = None
            for item in pending[:start]:
                if isinstance(item, m.Prompt):
                    is_hand = isinstance(item.seat, int) and item.street != CHOICE_STREET
                    bank = item if is_hand else bank
                elif isinstance(item.payload, m.MatchStarted | m.GameChanged):
                    self._apply(table, item)
            if bank is not None:
                table.state["time_bank_seconds"] = round(bank.time_bank_left_seconds, 2)
            for item in pending[start:]:
                if isinstance(item, m.Prompt):
                    self._decision(table, item)
                else:
                    self._apply(table, item)
        except Exception:  # a spectator bug must never stop the web app
            self._failed(table)

    def _decision(self, table: _Table, prompt: m.Prompt) -> None:
        if prompt.street == CHOICE_STREET and isinstance(prompt.seat, int):
            # docs/house-rules.md §28: between hands, a seat is choosing the next orbit's game.
            seat = prompt.seat
            name = table.names[seat] if seat < len(table.names) else f"seat {seat}"
            table.state["choosing"] = {"seat": seat, "name": name, "first_hand": prompt.hand_number,
                                       "deadline_unix_seconds": prompt.deadline_unix_seconds}
            return
        if table.state.get("hand_id") != prompt.hand_id or not isinstance(prompt.seat, int):
            return
        table.state["actor"] = prompt.seat
        table.state["deadline_unix_seconds"] = prompt.deadline_unix_seconds
        table.state["time_bank_seconds"] = round(prompt.time_bank_left_seconds, 2)

    def _apply(self, table: _Table, notice: m.Notice) -> None:
        payload = notice.payload
        state = table.state
        if isinstance(payload, m.MatchStarted):
            table.names = [s.name for s in payload.seats]
            table.rules = _wild_rules(payload.rules)
            state.update(match_id=table.match_id, status="started", hand_id="", seats=[
                {"seat": s.seat, "name": s.name, "stack": s.stack_chips, "bet": 0, "up": [],
                 "down": 0, "status": str(s.status)} for s in payload.seats])
        elif isinstance(payload, m.HandStarted):
            state.update(match_id=table.match_id, status="playing", hand_id=notice.hand_id,
                         hand_number=payload.hand_number, game=payload.game,
                         **_game_words(payload.game, table.rules),
                         button_seat=payload.button_seat, board=[], common_card=False, pot=0,
                         pots=[], actor=None, deadline_unix_seconds=None, shown=[],
                         result=None, actions=[], street="",
                         choice=table.choice if covers(table.choice, payload.hand_number) else None,
                         choosing=None)
            state["seats"] = [{"seat": s.seat, "name": s.name, "stack": s.stack_chips,
                               "bet": s.bet_chips, "up": _cards(s.up_cards), "down": 0,
                               "status": str(s.status)} for s in payload.seats]
        elif isinstance(payload, m.CardsDealt):
            seat = self._seat(state, payload.seat)
            if seat is not None:
                seat["up"] = seat["up"] + _cards(payload.up_cards)
                seat["down"] = seat["down"] + payload.hole_card_count
            state["street"] = payload.street
        elif isinstance(payload, m.BoardDealt):
            state["board"] = _cards(payload.board_cards)
            state["common_card"] = state.get("common_card") or payload.is_common_card
            state["street"] = payload.street
        elif isinstance(payload, m.ActionTaken):
            self._action(table, payload)
        elif isinstance(payload, m.StreetEnded):
            state["pot"] = payload.pot_total_chips
            state["pots"] = [{"amount": p.amount_chips, "eligible": list(p.eligible_seats)}
                             for p in payload.pots]
            for seat in state.get("seats", []):
                seat.pop("exchange", None)
                seat["bet"] = 0
        elif isinstance(payload, m.Showdown):
            state["shown"] = [{"seat": h.seat, "cards": _cards(h.cards), "high": h.high_description,
                               "low": h.low_description,
                               "wild": _shown_wild(state.get("game", ""), table.rules, h,
                                                   self._seat(state, h.seat))}
                              for h in payload.hands]
            state["actor"] = None
        elif isinstance(payload, m.HandEnded):
            self._ended(table, payload)
        elif isinstance(payload, m.GameChanged):
            if payload.dealers_choice:  # docs/house-rules.md §28: who chose, or that the dealer did
                state["choosing"] = None
                table.choice = state["choice"] = choice_view(
                    game=payload.game, chooser_seat=payload.chooser_seat,
                    automatic=payload.automatic.value if payload.automatic else None,
                    first_hand=payload.first_hand_number, hands=payload.hands, names=table.names)
        elif isinstance(payload, m.MatchEnded):
            state.update(status="ended", actor=None, deadline_unix_seconds=None,
                         aborted=payload.aborted)  # never the seed: it is in the result file

    def _failed(self, table: _Table) -> None:
        log.exception("live view of match %s failed; its table is shown no longer", table.match_id)
        table.state = {"match_id": table.match_id, "status": "unavailable"}
        self._dirty.add(table.match_id)

    @staticmethod
    def _seat(state: dict[str, Any], seat: int) -> dict[str, Any] | None:
        seats: list[dict[str, Any]] = state.get("seats", [])
        return next((entry for entry in seats if entry["seat"] == seat), None)

    def _action(self, table: _Table, payload: m.ActionTaken) -> None:
        state = table.state
        action = payload.action
        seat = self._seat(state, action.seat)
        if seat is not None:
            seat["stack"] = payload.stack_after_chips
            seat["bet"] = action.round_bet_chips
            if action.kind is m.RecordKind.FOLD:
                seat["status"] = "folded"
            elif action.is_all_in:
                seat["status"] = "all_in"
        state["pot"] = payload.pot_total_after_chips
        state["actor"] = None
        state["deadline_unix_seconds"] = None
        name = table.names[action.seat] if action.seat < len(table.names) else f"seat {action.seat}"
        if action.kind is m.RecordKind.EXCHANGE:
            said = self._exchange(seat, action)
        else:
            said = f"{action.kind} {action.raise_to_chips}" if action.kind in (
                m.RecordKind.RAISE, m.RecordKind.BRING_IN, m.RecordKind.POST_SMALL_BLIND,
                m.RecordKind.POST_BIG_BLIND, m.RecordKind.POST_ANTE) else f"{action.kind}"
        auto = f" ({action.automatic})" if action.automatic else ""
        state["actions"] = [*state.get("actions", []), f"{name}: {said}{auto}"][-RECENT_ACTIONS:]

    @staticmethod
    def _exchange(seat: dict[str, Any] | None, action: m.ActionRecord) -> str:
        """docs/house-rules.md §26 for spectators: how many cards went; English Stud's up cards
        by name (they are public, §25), the new up card in the old one's place. The cards of a
        down exchange are the seat's secret: never read, even from its own copy. Returns what
        the seat did, in words."""
        count = action.exchange_card_count
        gave = _cards(action.exchanged_cards) if action.exchange_face_up else []
        got = _cards(action.drawn_cards) if action.exchange_face_up else []
        if seat is not None:
            seat["exchange"] = {"count": count, "gave": gave, "got": got}
            up = list(seat.get("up", []))
            for old, new in zip(gave, got, strict=False):
                if old in up:
                    up[up.index(old)] = new
            seat["up"] = up
        return f"exchange {count}{' face up' if gave else ''}" if count else "stand pat"

    def _ended(self, table: _Table, payload: m.HandEnded) -> None:
        state = table.state
        for result in payload.results:
            seat = self._seat(state, result.seat)
            if seat is not None:
                seat["stack"] = result.final_stack_chips
                seat["bet"] = 0
        state["result"] = {
            "voided": payload.voided,
            "net": {r.seat: r.net_chips for r in payload.results},
            "awards": [{"pot": a.pot_index, "half": str(a.half), "amount": a.amount_chips,
                        "winners": [list(w) for w in a.winners]} for a in payload.awards]}
        state["actor"] = None
        state["deadline_unix_seconds"] = None

    # ------------------------------------------------------------ spectators

    def snapshot(self) -> list[dict[str, Any]]:
        for table in self.tables.values():
            self._catch_up(table)
        return [self._public(t) for t in self.tables.values() if t.state]

    def _public(self, table: _Table) -> dict[str, Any]:
        """The table's state as it may be shown: with no card of its hand's deal while another
        duplicate copy has that hand still to play (a bot there could read its cards here)."""
        others_ended = self._deal_ends[table.deal_id] - table.deal_ended if table.deal_id else 0
        if table.copies <= 1 or others_ended >= table.copies - 1:
            return table.state
        return _without_cards(table.state)

    def _message(self, state: dict[str, Any]) -> str:
        return f"event: table\ndata: {json.dumps(state, separators=(',', ':'))}\n\n"

    def flush(self) -> int:
        """Send each changed table once to every spectator; drop those that cannot keep up."""
        if not self._dirty:
            return 0
        dirty, self._dirty = self._dirty, set()
        for match_id in dirty:
            self._catch_up(self.tables[match_id])
        if not self._spectators:
            return 0
        messages = [self._message(self._public(self.tables[k])) for k in sorted(dirty)
                    if self.tables[k].state]
        for spectator in list(self._spectators):
            for text in messages:
                if not spectator.offer(text):
                    self._drop(spectator)
                    break
        return len(messages)

    def _drop(self, spectator: _Spectator) -> None:
        if spectator in self._spectators:
            self._spectators.discard(spectator)
            self.dropped_spectators += 1
            with contextlib.suppress(asyncio.QueueFull):
                spectator.queue.put_nowait(None)

    def close(self) -> None:
        """The web server is stopping (the league has ended): each stream sends what is left,
        then ``ended``, and ends, so that no spectator holds the server's shutdown (uvicorn would
        cancel the stream after its grace period and log it as an error)."""
        self.flush()
        self._closed = True
        for spectator in self._spectators:
            with contextlib.suppress(asyncio.QueueFull):  # full: it ends once it has read them
                spectator.queue.put_nowait(None)

    async def run_flusher(self) -> None:
        while True:
            await asyncio.sleep(self.interval_seconds)
            self.flush()

    async def stream(self) -> AsyncIterator[str]:
        """An SSE stream: every table now, then each change; ends if the reader falls behind,
        and with ``ended`` when the server stops (:meth:`close`)."""
        if self._closed:
            yield ENDED
            return
        if len(self._spectators) >= MAX_SPECTATORS:
            yield "event: full\ndata: {}\n\n"
            return
        spectator = _Spectator()
        self._spectators.add(spectator)
        try:
            yield "retry: 2000\n\n"
            for state in self.snapshot():
                yield self._message(state)
            queue = spectator.queue
            while True:
                if queue.empty():  # what was queued is sent first
                    if self._closed:
                        yield ENDED
                        return
                    if spectator.dropped:  # it fell behind
                        return
                try:
                    text = await asyncio.wait_for(queue.get(), timeout=15.0)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                waiting = _rest_of(queue, text)
                if waiting:
                    yield waiting
        finally:
            self._spectators.discard(spectator)
