"""Proto <-> domain mapping: the match layer's values to and from the wire contract's messages.

How they are serialized (caching, splicing, batching) is in :mod:`arena.server.wire`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from google.protobuf.timestamp_pb2 import Timestamp

from arena.engine.actions import ActionKind
from arena.engine.cards import DECK_SIZE, RANKS, Card, format_card
from arena.engine.events import PotShare
from arena.engine.games import Betting, EngineGame, GameCode, variant_for
from arena.engine.rules import Stakes
from arena.engine.strategy import MAX_STRATEGY_ACTIONS
from arena.match import messages as m
from arena.match.faults import CloseReason, DecisionClosed
from arena.server.errors import reject_code
from arena.v1 import arena_pb2 as pb

GAMES: Mapping[str, pb.Game.ValueType] = {
    GameCode.HOLDEM.value: pb.GAME_HOLDEM,
    GameCode.OMAHA_HI_LO.value: pb.GAME_OMAHA_HI_LO,
    GameCode.RAZZ.value: pb.GAME_RAZZ,
    GameCode.STUD.value: pb.GAME_STUD,
    GameCode.STUD_HI_LO.value: pb.GAME_STUD_HI_LO,
    GameCode.NO_LIMIT_HOLDEM.value: pb.GAME_NO_LIMIT_HOLDEM,
    GameCode.POT_LIMIT_OMAHA.value: pb.GAME_POT_LIMIT_OMAHA,
    GameCode.POT_LIMIT_HOLDEM.value: pb.GAME_POT_LIMIT_HOLDEM,
    # issue 42 (docs/house-rules.md §21-§25)
    EngineGame.DEUCE_TO_SEVEN_TRIPLE_DRAW.value: pb.GAME_DEUCE_TO_SEVEN_TRIPLE_DRAW,
    EngineGame.LONDON_LOWBALL.value: pb.GAME_LONDON_LOWBALL,
    EngineGame.STUD_WILD.value: pb.GAME_STUD_WILD,
    EngineGame.STUD_WILD_LOW.value: pb.GAME_STUD_WILD_LOW,
    EngineGame.STUD_WILD_HI_LO.value: pb.GAME_STUD_WILD_HI_LO,
    EngineGame.LOW_HOLE.value: pb.GAME_LOW_HOLE,
    EngineGame.LOW_HOLE_HI_LO.value: pb.GAME_LOW_HOLE_HI_LO,
    EngineGame.ENGLISH_STUD.value: pb.GAME_ENGLISH_STUD,
}
BETTING: Mapping[Betting, pb.BettingStructure.ValueType] = {
    Betting.FIXED: pb.BETTING_STRUCTURE_FIXED_LIMIT,
    Betting.NO_LIMIT: pb.BETTING_STRUCTURE_NO_LIMIT,
    Betting.POT_LIMIT: pb.BETTING_STRUCTURE_POT_LIMIT,
}
STREETS: Mapping[str, pb.Street.ValueType] = {
    "preflop": pb.STREET_PREFLOP, "flop": pb.STREET_FLOP, "turn": pb.STREET_TURN,
    "river": pb.STREET_RIVER, "third": pb.STREET_THIRD, "fourth": pb.STREET_FOURTH,
    "fifth": pb.STREET_FIFTH, "sixth": pb.STREET_SIXTH, "seventh": pb.STREET_SEVENTH,
    "predraw": pb.STREET_PREDRAW, "first draw": pb.STREET_FIRST_DRAW,
    "second draw": pb.STREET_SECOND_DRAW, "third draw": pb.STREET_THIRD_DRAW,
    "game choice": pb.STREET_GAME_CHOICE,  # dealer's choice (docs/house-rules.md §28)
}
KINDS_OUT: Mapping[str, pb.ActionKind.ValueType] = {
    "fold": pb.ACTION_KIND_FOLD, "check": pb.ACTION_KIND_CHECK, "call": pb.ACTION_KIND_CALL,
    "bring_in": pb.ACTION_KIND_BRING_IN, "raise": pb.ACTION_KIND_RAISE,
    "exchange": pb.ACTION_KIND_EXCHANGE, "post_ante": pb.ACTION_KIND_POST_ANTE,
    "post_small_blind": pb.ACTION_KIND_POST_SMALL_BLIND,
    "post_big_blind": pb.ACTION_KIND_POST_BIG_BLIND,
    "choose_game": pb.ACTION_KIND_CHOOSE_GAME,
}
KINDS_IN: Mapping[int, ActionKind] = {
    pb.ACTION_KIND_FOLD: ActionKind.FOLD, pb.ACTION_KIND_CHECK: ActionKind.CHECK,
    pb.ACTION_KIND_CALL: ActionKind.CALL, pb.ACTION_KIND_BRING_IN: ActionKind.BRING_IN,
    pb.ACTION_KIND_RAISE: ActionKind.RAISE, pb.ACTION_KIND_EXCHANGE: ActionKind.EXCHANGE,
    pb.ACTION_KIND_CHOOSE_GAME: ActionKind.CHOOSE_GAME,
}
CODES_OF_GAMES: Mapping[int, str] = {number: code for code, number in GAMES.items()}
STATUSES: Mapping[m.SeatStatus, pb.SeatStatus.ValueType] = {
    m.SeatStatus.ACTIVE: pb.SEAT_STATUS_ACTIVE, m.SeatStatus.FOLDED: pb.SEAT_STATUS_FOLDED,
    m.SeatStatus.ALL_IN: pb.SEAT_STATUS_ALL_IN, m.SeatStatus.ABSENT: pb.SEAT_STATUS_ABSENT,
    m.SeatStatus.OUT: pb.SEAT_STATUS_OUT,
}
REASONS: Mapping[m.AutoReason | None, pb.AutomaticReason.ValueType] = {
    None: pb.AUTOMATIC_REASON_UNSPECIFIED, m.AutoReason.TIMEOUT: pb.AUTOMATIC_REASON_TIMEOUT,
    m.AutoReason.ABSENT: pb.AUTOMATIC_REASON_ABSENT,
}
HALVES: Mapping[PotShare, pb.PotHalf.ValueType] = {
    PotShare.WHOLE: pb.POT_HALF_WHOLE, PotShare.HIGH: pb.POT_HALF_HIGH,
    PotShare.LOW: pb.POT_HALF_LOW,
}


CARD_TEXT = tuple(format_card(c) for c in range(DECK_SIZE))  # by card
_card_text = CARD_TEXT.__getitem__


def cards(values: Iterable[Card]) -> list[str]:
    return list(map(_card_text, values))


def timestamp(unix_seconds: float) -> Timestamp:
    seconds = int(unix_seconds)
    return Timestamp(seconds=seconds, nanos=int((unix_seconds - seconds) * 1e9))


def stakes(value: Stakes, *, game: str | None = None) -> pb.Stakes:
    """The stakes; for one hand (``game`` given) the forced bets of the other family are 0."""
    variant = variant_for(game) if game is not None and game in GAMES else None
    stud = variant is not None and variant.is_stud
    flop = variant is not None and not stud
    fixed = variant is None or variant.betting is Betting.FIXED
    return pb.Stakes(small_bet_chips=value.small_bet, big_bet_chips=value.big_bet,
                     small_blind_chips=0 if stud else value.small_blind,
                     big_blind_chips=0 if stud else value.big_blind,
                     ante_chips=0 if flop else value.ante,
                     bring_in_chips=0 if flop else value.bring_in,
                     min_bet_chips=0 if fixed else value.big_blind)


def seat_state(seat: m.SeatInfo) -> pb.SeatState:
    return pb.SeatState(seat=seat.seat, name=seat.name, stack_chips=seat.stack_chips,
                        bet_chips=seat.bet_chips, total_committed_chips=seat.committed_chips,
                        up_cards=cards(seat.up_cards), hole_card_count=seat.hole_card_count,
                        status=STATUSES[seat.status], bot_id=seat.bot_id)


def pot(value: m.PotInfo) -> pb.Pot:
    return pb.Pot(amount_chips=value.amount_chips, eligible_seats=value.eligible_seats)


def action_record(record: m.ActionRecord) -> pb.ActionRecord:
    return pb.ActionRecord(seat=record.seat, street=STREETS[record.street],
                           kind=KINDS_OUT[record.kind], raise_to_chips=record.raise_to_chips,
                           amount_chips=record.amount_chips,
                           round_bet_chips=record.round_bet_chips, is_all_in=record.is_all_in,
                           automatic=record.automatic is not None,
                           automatic_reason=REASONS[record.automatic],
                           exchange_card_count=record.exchange_card_count,
                           exchanged_cards=cards(record.exchanged_cards),
                           drawn_cards=cards(record.drawn_cards),
                           exchange_face_up=record.exchange_face_up)


def legal_action(choice: m.LegalChoice) -> pb.LegalAction:
    return pb.LegalAction(kind=KINDS_OUT[choice.kind], min_raise_to_chips=choice.min_to_chips,
                          max_raise_to_chips=choice.max_to_chips, is_all_in=choice.is_all_in,
                          any_amount=choice.is_range, min_exchange_cards=choice.min_exchanged,
                          max_exchange_cards=choice.max_exchanged,
                          exchangeable_cards=cards(choice.exchangeable_cards),
                          exchange_price_chips=choice.price_chips,
                          replacement_keeps_face=choice.keeps_face,
                          choosable_games=[GAMES[g] for g in choice.games])


def decision_request(p: m.Prompt) -> pb.DecisionRequest:
    """The request: the seat's view of its decision, with the hand's history. (The encoder
    sends the same message spliced from cached bytes: :meth:`arena.server.wire.Encoder.encode`.)"""
    out = pb.DecisionRequest(
        match_id=p.match_id, hand_id=p.hand_id, game=GAMES[p.game], game_code=p.game,
        hand_number=p.hand_number, button_seat=p.button_seat, your_seat=p.seat,
        stakes=stakes(p.stakes, game=p.game), game_hand_number=p.game_hand_number,
        hands_per_game=p.hands_per_game, betting=BETTING[variant_for(p.game).betting],
        decision_id=p.decision_id, street=STREETS[p.street], hole_cards=cards(p.hole_cards),
        board_cards=cards(p.board), pot_total_chips=p.pot_total_chips,
        current_bet_chips=p.current_bet_chips, amount_to_call_chips=p.to_call_chips,
        legal_actions=[legal_action(c) for c in p.legal], pots=[pot(x) for x in p.pots],
        seats=[seat_state(s) for s in p.seats], actions=[action_record(a) for a in p.actions],
        bet_size_chips=p.bet_size_chips, raises_left=p.raises_left,
        decision_time_left_seconds=p.decision_time_left_seconds,
        time_bank_left_seconds=p.time_bank_left_seconds,
        wild_ranks=[RANKS[r] for r in p.wild_ranks],
        low_wild_ranks=[RANKS[r] for r in p.low_wild_ranks])
    _set_time(out.decision_deadline, p.deadline_unix_seconds)
    _set_time(out.server_time, p.sent_unix_seconds)
    return out


def _set_time(stamp: Timestamp, unix_seconds: float) -> None:
    seconds = int(unix_seconds)
    stamp.seconds = seconds
    stamp.nanos = int((unix_seconds - seconds) * 1e9)


def rejection(r: m.Rejection) -> pb.ActionRejected:
    reply = r.reply
    kind = KINDS_OUT[reply.kind.value] if reply.kind is not None else pb.ACTION_KIND_UNSPECIFIED
    return pb.ActionRejected(
        decision_id=r.decision_id, code=reject_code(r.error), message=str(r.error),
        rejected_action=pb.Action(kind=kind, raise_to_chips=reply.raise_to_chips or 0,
                                  exchange_cards=cards(reply.cards),
                                  game=GAMES.get(reply.game, pb.GAME_UNSPECIFIED)),
        retry_allowed=r.retry_allowed, time_left_seconds=r.time_left_seconds)


CLOSE_REASONS: Mapping[CloseReason, pb.DecisionCloseReason.ValueType] = {
    CloseReason.TIMEOUT: pb.DECISION_CLOSE_REASON_TIMEOUT,
    CloseReason.HAND_STOPPED: pb.DECISION_CLOSE_REASON_HAND_STOPPED,
}


def decision_closed(c: DecisionClosed) -> pb.DecisionClosed:
    return pb.DecisionClosed(
        decision_id=c.decision_id, match_id=c.match_id, hand_number=c.hand_number, seat=c.seat,
        reason=CLOSE_REASONS[c.reason],
        action=KINDS_OUT[c.action.value] if c.action is not None else pb.ACTION_KIND_UNSPECIFIED,
        open_seconds=c.open_seconds)


# ----------------------------------------------------------------------------- events


def _match_started(p: m.MatchStarted) -> pb.Event:
    return pb.Event(match_started=pb.MatchStarted(
        seats=[seat_state(s) for s in p.seats], your_seat=p.your_seat,
        games=[GAMES[g] for g in p.games], game_codes=list(p.games),
        hands_per_game=p.hands_per_game, total_hands=p.total_hands,
        format=(pb.MATCH_FORMAT_TOURNAMENT if p.tournament is not None
                else pb.MATCH_FORMAT_DUPLICATE if p.duplicate_copies > 1 else pb.MATCH_FORMAT_CASH),
        stakes=stakes(p.stakes), starting_stack_chips=p.starting_stack_chips,
        decision_seconds=p.decision_seconds, time_bank_seconds=p.time_bank_seconds,
        duplicate_copies=p.duplicate_copies, rules=dict(p.rules),
        tournament=_tournament(p.tournament) if p.tournament is not None else None))


def _tournament(t: m.TournamentInfo) -> pb.TournamentState:
    return pb.TournamentState(
        tournament=t.tournament, event_id=t.event_id, event_title=t.event_title, table=t.table,
        table_hand=t.table_hand, round=t.round, level=t.level,
        small_blind_chips=t.small_blind_chips, big_blind_chips=t.big_blind_chips,
        ante_chips=t.ante_chips, next_level_at_round=t.next_level_at_round,
        next_level_in_seconds=t.next_level_in_seconds, players_left=t.players_left,
        tables=t.tables,
        moves=[pb.TableMove(name=n, from_table=a, to_table=b, round=r, reason=why)
               for n, a, b, r, why in t.moves],
        placings=[pb.Placing(name=n, place=place, round=r) for n, place, r in t.placings])


def _hand_started(p: m.HandStarted) -> pb.Event:
    return pb.Event(hand_started=pb.HandStarted(
        hand_number=p.hand_number, game=GAMES[p.game], game_code=p.game,
        button_seat=p.button_seat, your_seat=p.your_seat,
        seats=[seat_state(s) for s in p.seats], stakes=stakes(p.stakes, game=p.game),
        deal_id=p.deal_id, game_hand_number=p.game_hand_number, duplicate_copy=p.duplicate_copy))


def _payload(payload: m.Payload) -> pb.Event:
    if isinstance(payload, m.ActionTaken):
        return pb.Event(action_taken=pb.ActionTaken(
            action=action_record(payload.action), stack_after_chips=payload.stack_after_chips,
            pot_total_after_chips=payload.pot_total_after_chips,
            decision_id=payload.decision_id, drawn_from_strategy=bool(payload.strategy)))
    if isinstance(payload, m.CardsDealt):
        return pb.Event(cards_dealt=pb.CardsDealt(
            street=STREETS[payload.street], seat=payload.seat, up_cards=cards(payload.up_cards),
            hole_cards=cards(payload.hole_cards), hole_card_count=payload.hole_card_count))
    if isinstance(payload, m.BoardDealt):
        return pb.Event(board_dealt=pb.BoardDealt(
            street=STREETS[payload.street], cards=cards(payload.cards),
            board_cards=cards(payload.board_cards), is_common_card=payload.is_common_card))
    if isinstance(payload, m.StreetEnded):
        return pb.Event(street_ended=pb.StreetEnded(
            street=STREETS[payload.street], pots=[pot(x) for x in payload.pots],
            pot_total_chips=payload.pot_total_chips,
            returned=[pb.ChipsReturned(seat=s, amount_chips=c) for s, c in payload.returned]))
    if isinstance(payload, m.Showdown):
        return pb.Event(showdown=pb.Showdown(hands=[
            pb.ShownHand(seat=h.seat, cards=cards(h.cards), high_description=h.high_description,
                         high_cards=cards(h.high_cards), low_description=h.low_description,
                         low_cards=cards(h.low_cards)) for h in payload.hands]))
    if isinstance(payload, m.HandEnded):
        ended = pb.HandEnded(
            results=[pb.SeatResult(seat=r.seat, net_chips=r.net_chips,
                                   final_stack_chips=r.final_stack_chips) for r in payload.results],
            awards=[pb.PotAward(pot_index=a.pot_index, amount_chips=a.amount_chips,
                                half=HALVES[a.half],
                                winners=[pb.WinnerShare(seat=s, amount_chips=c)
                                         for s, c in a.winners]) for a in payload.awards],
            voided=payload.voided, void_reason=payload.void_reason,
            went_to_showdown=payload.went_to_showdown)
        if isinstance(payload, m.HandSummary):  # requests-and-results seats: the public record
            ended.actions.extend(action_record(a) for a in payload.actions)
            ended.board_cards.extend(cards(payload.board))
            ended.seats.extend(seat_state(s) for s in payload.seats)
        return pb.Event(hand_ended=ended)
    if isinstance(payload, m.HandStarted):
        return _hand_started(payload)
    if isinstance(payload, m.MatchStarted):
        return _match_started(payload)
    if isinstance(payload, m.DuplicateCopyStarted):
        return pb.Event(duplicate_copy_started=pb.DuplicateCopyStarted(
            copy_index=payload.copy_index, copies_total=payload.copies_total,
            deal_set_id=payload.deal_set_id, your_seat=payload.your_seat,
            seats=[seat_state(s) for s in payload.seats]))
    if isinstance(payload, m.GameChanged):
        return pb.Event(game_changed=pb.GameChanged(
            game=GAMES[payload.game], game_code=payload.game,
            previous_game=GAMES.get(payload.previous_game, pb.GAME_UNSPECIFIED),
            previous_game_code=payload.previous_game,
            first_hand_number=payload.first_hand_number, dealers_choice=payload.dealers_choice,
            chooser_seat=payload.chooser_seat, automatic_reason=REASONS[payload.automatic],
            hands=payload.hands))
    return pb.Event(match_ended=pb.MatchEnded(
        results=[pb.MatchSeatResult(seat=r.seat, name=r.name, bot_id=r.bot_id,
                                    net_chips=r.net_chips, hands_played=r.hands_played,
                                    mbb_per_hand=r.mbb_per_hand,
                                    mbb_per_hand_ci95=r.mbb_per_hand_ci95,
                                    final_stack_chips=r.final_stack_chips, place=r.place)
                 for r in payload.results],
        match_seed=payload.match_seed, hands_played=payload.hands_played,
        aborted=payload.aborted, abort_reason=payload.abort_reason))


def event(notice: m.Notice) -> pb.Event:
    out = _payload(notice.payload)
    out.match_id = notice.match_id
    out.hand_id = notice.hand_id
    out.sequence = notice.sequence
    _set_time(out.server_time, notice.unix_seconds)
    return out


MAX_THINK_SECONDS = 2 * 86_400.0  # the longest decision a config allows (decision + time bank)


def think_seconds(reported: float, wire_seconds: float | None) -> float | None:
    """A bot's reported think time, or None when it is absent, NaN, infinite or negative;
    never more than the round trip the dealer measured (``wire_seconds``)."""
    if not reported or not math.isfinite(reported) or reported < 0:
        return None
    return min(reported, wire_seconds if wire_seconds is not None else MAX_THINK_SECONDS)


def reply(message: pb.ActionReply, received_at: float,
          wire_seconds: float | None = None) -> m.Reply:
    """A bot's reply as the match layer sees it; an unusable kind becomes ``kind=None``."""
    if message.HasField("strategy"):
        return _strategy_reply(message, received_at, wire_seconds)
    action = message.action
    has_action = message.HasField("action")
    kind = KINDS_IN.get(action.kind) if has_action else None
    problem = ""
    if kind is None and not has_action:
        problem = "the reply has no action"
    elif kind is None:
        name = (pb.ActionKind.Name(action.kind) if action.kind in pb.ActionKind.values()
                else str(action.kind))
        problem = (f"action kind {name} is not a bot action; send FOLD, CHECK, CALL, BRING_IN, "
                   f"RAISE, EXCHANGE or CHOOSE_GAME")
    exchanged: tuple[Card, ...] = ()
    if action.exchange_cards:
        exchanged, why = exchange_cards(action.exchange_cards)
        if why and not problem:
            kind, problem = None, why
        elif kind is not ActionKind.EXCHANGE and not problem:
            kind, problem = None, (f"exchange_cards is only for ACTION_KIND_EXCHANGE, not "
                                   f"{pb.ActionKind.Name(action.kind)}")
    game = ""
    if kind is ActionKind.CHOOSE_GAME and not problem:  # docs/house-rules.md §28
        game, why = chosen_game(action.game)
        if why:
            kind, problem = None, why
    elif action.game and not problem:
        kind, problem = None, (f"game is only for ACTION_KIND_CHOOSE_GAME (dealer's choice), not "
                               f"{pb.ActionKind.Name(action.kind)}")
    return m.Reply(decision_id=message.decision_id, seat=message.seat, kind=kind, cards=exchanged,
                   game=game,
                   raise_to_chips=action.raise_to_chips if kind is ActionKind.RAISE else None,
                   think_seconds=think_seconds(message.think_seconds,
                                               wire_seconds), received_at=received_at,
                                               wire_seconds=wire_seconds,
                   problem=problem, fallback=message.fallback != pb.FALLBACK_UNSPECIFIED)


def _strategy_reply(message: pb.ActionReply, received_at: float,
                    wire_seconds: float | None) -> m.Reply:
    """A reply declaring a strategy (issue 40): its entries unchecked but bounded in number
    (the table validates them against the decision); both an action and a strategy, or too
    many entries, is a malformed reply."""
    entries = message.strategy.actions
    problem = ""
    strategy: tuple[tuple[ActionKind | None, int | None, float], ...] | None = None
    if message.HasField("action"):
        problem = "the reply sets both an action and a strategy; set exactly one"
    elif len(entries) > MAX_STRATEGY_ACTIONS:
        problem = f"the strategy lists {len(entries)} actions; at most {MAX_STRATEGY_ACTIONS}"
    elif any(e.action.kind == pb.ACTION_KIND_EXCHANGE for e in entries):
        problem = ("an exchange cannot be drawn from a strategy; answer with one EXCHANGE "
                   "action naming its cards (docs/house-rules.md §26)")
    else:
        strategy = tuple([(KINDS_IN.get(e.action.kind) if e.HasField("action") else None,
                           e.action.raise_to_chips, e.probability) for e in entries])
    games = tuple([CODES_OF_GAMES.get(e.action.game, "") for e in entries]
                  ) if strategy is not None and any(e.action.game for e in entries) else ()
    return m.Reply(decision_id=message.decision_id, seat=message.seat, kind=None,
                   raise_to_chips=None, strategy_games=games,
                   think_seconds=think_seconds(message.think_seconds, wire_seconds),
                   received_at=received_at, wire_seconds=wire_seconds, problem=problem,
                   strategy=strategy)


def chosen_game(number: int) -> tuple[str, str]:
    """A bot's ``Action.game`` as a game code, and why it is refused ("" if not): unset or not
    a game of the contract. Whether it is on the menu is the table's check (§28)."""
    code = CODES_OF_GAMES.get(number)
    if code is not None:
        return code, ""
    if number == pb.GAME_UNSPECIFIED:
        return "", "CHOOSE_GAME needs a game: set Action.game to one of the choosable_games"
    return "", f"Action.game {number} is not a game of the wire contract"


MAX_EXCHANGE_CARDS = 7  # more than any hand holds (docs/house-rules.md §26)
CARD_OF_TEXT: Mapping[str, Card] = {text: card for card, text in enumerate(CARD_TEXT)}


def exchange_cards(names: Iterable[str]) -> tuple[tuple[Card, ...], str]:
    """A bot's ``Action.exchange_cards`` as cards, and why they are refused ("" if not): an
    unknown card name, a card named twice, or more cards than any hand holds. Whether the seat
    holds them and may give that many is the engine's check (docs/house-rules.md §26)."""
    names = list(names)
    if len(names) > MAX_EXCHANGE_CARDS:
        return (), (f"exchange_cards names {len(names)} cards; a hand never holds more than "
                    f"{MAX_EXCHANGE_CARDS}")
    out: list[Card] = []
    for name in names:
        card = CARD_OF_TEXT.get(name)
        if card is None:
            shown = name[:12] + ("..." if len(name) > 12 else "")
            return (), (f"exchange_cards: {shown!r} is not a card; name cards as rank and suit, "
                        f"e.g. 'Th', '7c'")
        if card in out:
            return (), f"exchange_cards names {name} twice"
        out.append(card)
    return tuple(out), ""
