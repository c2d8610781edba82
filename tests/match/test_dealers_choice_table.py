"""Dealer's choice at the live table (docs/house-rules.md §28) on a fake clock: the request, the
refusal of illegal choices with nothing changed, the default for a silent or absent chooser,
the choice moving round the table, strategies over the menu, and a resumed match."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
import trio
import trio.testing

from arena.engine.actions import ActionKind
from arena.engine.errors import ArenaError, IllegalAction, MalformedAction
from arena.engine.rules import Rules
from arena.match import messages as m
from arena.match.faults import BotFault, CloseReason, DecisionClosed
from arena.match.lobby import Lobby
from arena.match.spec import AbsentPolicy, MatchSpec, SeatSpec
from tests.match.scripted import ScriptedBot, passive

MENU = ("FT", "F7S", "FR")
Chooser = Callable[[m.Prompt, int], list[m.Reply]]  # (choice request, its number) -> replies


def choose(game: str) -> Chooser:
    return lambda p, _n: [m.Reply(decision_id=p.decision_id, seat=p.seat,
                                  kind=ActionKind.CHOOSE_GAME, raise_to_chips=None, game=game)]


class Chooses(ScriptedBot):
    """A passive bot that answers dealer's-choice requests with ``chooser``'s replies, one
    table-clock second apart (an empty list: it stays silent)."""

    def __init__(self, lobby: Lobby, bot_id: str, chooser: Chooser) -> None:
        super().__init__(lobby, bot_id, passive)
        self.chooser = chooser
        self.choices = 0

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            async for item in self._receive:
                self.log.append((trio.current_time(), item))
                if isinstance(item, m.Prompt) and item.street == "game choice":
                    self.choices += 1
                    nursery.start_soon(self._choose, self.chooser(item, self.choices))
                elif isinstance(item, m.Prompt):
                    for say in self.script(item, 0):
                        nursery.start_soon(self._answer, item, say)

    def rejections_seen(self) -> int:
        return len(self.items(m.Rejection))

    async def _choose(self, replies: list[m.Reply]) -> None:
        for reply in replies:
            await trio.sleep(1.0)
            self.lobby.submit(self.bot_id, reply)


def _spec(seats: int = 2, hands: int = 4, **rules: object) -> MatchSpec:
    return MatchSpec("dc", tuple(SeatSpec(f"b{k}", f"b{k}") for k in range(seats)),
                     Rules.from_mapping({"games": list(MENU), "dealers_choice": True,
                                         "decision_seconds": 5.0, **rules}),
                     hands, seed=17, start_timeout_seconds=5.0)


def _play(spec: MatchSpec, choosers: dict[str, Chooser], faults: list[BotFault] | None = None,
          attached: tuple[str, ...] | None = None) -> dict[str, Chooses]:
    from arena.match.live import LiveTable

    async def main() -> dict[str, Chooses]:
        lobby = Lobby()
        if faults is not None:
            lobby.fault_observers.append(faults.append)
        table = LiveTable(spec, lobby)
        bots = {b: Chooses(lobby, b, chooser) for b, chooser in choosers.items()}
        async with trio.open_nursery() as nursery:
            for name, bot in bots.items():
                if attached is None or name in attached:
                    bot.attach()
                nursery.start_soon(bot.run)
            await table.run()
            await trio.sleep(1.0)
            nursery.cancel_scope.cancel()
        return bots

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def _changes(bot: ScriptedBot) -> list[m.GameChanged]:
    out = []
    for _, notice in bot.notices(m.GameChanged):
        assert isinstance(notice.payload, m.GameChanged)
        out.append(notice.payload)
    return out


def _games(bot: ScriptedBot) -> list[str]:
    out = []
    for _, notice in bot.notices(m.HandStarted):
        assert isinstance(notice.payload, m.HandStarted)
        out.append(notice.payload.game)
    return out


def test_the_choice_request_lists_the_menu_and_offers_the_default() -> None:
    """§28: one request per orbit, before its first hand: CHOOSE_GAME the only legal action,
    the menu in order, no cards, the default as its game; the time limit `choice_seconds` with
    no time bank. Every seat is told the choice; the orbit is dealt in it."""
    bots = _play(_spec(choice_seconds=7.0), {"b0": choose("FR"), "b1": choose("F7S")})
    prompts = [p for b in bots.values() for _, p in b.items(m.Prompt)
               if isinstance(p, m.Prompt) and p.street == "game choice"]
    assert sorted(p.hand_number for p in prompts) == [1, 3]
    for p in prompts:
        assert [c.kind for c in p.legal] == [ActionKind.CHOOSE_GAME]
        assert p.legal[0].games == MENU
        assert (p.hole_cards, p.board, p.actions, p.pots) == ((), (), (), ())
        assert p.time_bank_left_seconds == 0.0 and p.decision_time_left_seconds == 7.0
        assert p.hands_per_game == 2 and p.hand_id == f"dc-o{(p.hand_number + 1) // 2}"
    first = min(prompts, key=lambda p: p.hand_number)
    assert first.game == "FT"  # before any game: the menu's first
    changes = _changes(bots["b0"])
    assert changes == _changes(bots["b1"])
    assert [(c.first_hand_number, c.hands, c.dealers_choice, c.automatic) for c in changes] == [
        (1, 2, True, None), (3, 2, True, None)]
    assert changes[0].chooser_seat == first.seat and changes[1].chooser_seat != first.seat
    chosen = {"b0": "FR", "b1": "F7S"}
    assert _games(bots["b0"]) == [chosen[f"b{changes[0].chooser_seat}"]] * 2 + [
        chosen[f"b{changes[1].chooser_seat}"]] * 2
    second = max(prompts, key=lambda p: p.hand_number)
    assert second.game == MENU[(MENU.index(changes[0].game) + 1) % 3]  # the default offered


def test_illegal_choices_are_refused_and_change_nothing() -> None:
    """§28: another kind, no game, a game not on the menu, a strategy with another kind or
    weights not summing to one: each refused with the reason (the decision stays open, no
    choice is announced); the next legal answer is taken."""
    def stubborn(p: m.Prompt, _n: int) -> list[m.Reply]:
        base = {"decision_id": p.decision_id, "seat": p.seat, "raise_to_chips": None}
        return [m.Reply(kind=ActionKind.CALL, **base),
                m.Reply(kind=ActionKind.CHOOSE_GAME, game="", **base),
                m.Reply(kind=ActionKind.CHOOSE_GAME, game="NT", **base),
                m.Reply(kind=None, strategy=((ActionKind.CHOOSE_GAME, None, 0.5),
                                             (ActionKind.FOLD, None, 0.5)),
                        strategy_games=("FT", ""), **base),
                m.Reply(kind=None, strategy=((ActionKind.CHOOSE_GAME, None, 0.5),
                                             (ActionKind.CHOOSE_GAME, None, 0.4)),
                        strategy_games=("FT", "FR"), **base),
                m.Reply(kind=None, strategy=((ActionKind.CHOOSE_GAME, None, math.nan),),
                        strategy_games=("FT",), **base),
                m.Reply(kind=ActionKind.CHOOSE_GAME, game="F7S", **base)]

    bots = _play(_spec(hands=2, choice_seconds=30.0), {"b0": stubborn, "b1": stubborn})
    rejections = [r for b in bots.values() for _, r in b.items(m.Rejection)]
    assert len(rejections) == 6
    errors = [r.error for r in rejections if isinstance(r, m.Rejection)]
    assert all(r.retry_allowed and r.time_left_seconds > 0 for r in rejections
               if isinstance(r, m.Rejection))
    assert [type(e) for e in errors] == [IllegalAction, MalformedAction, IllegalAction,
                                         IllegalAction, MalformedAction, MalformedAction]
    said = [str(e) for e in errors]
    assert "call is not legal now" in said[0] and "CHOOSE_GAME with one of FT, F7S, FR" in said[0]
    assert "no game named" in said[1]
    assert "NT is not on this match's menu; choose one of FT, F7S, FR" in said[2]
    assert "strategy entry 2: fold is not legal now" in said[3]
    assert "sum to 0.9" in said[4]
    assert "not a finite number" in said[5]
    chooser = next(b for b in bots.values() if b.rejections_seen())
    # Nothing was announced before the accepted answer: one GameChanged, after six refusals.
    events = [i for _, i in chooser.log if isinstance(i, m.Rejection | m.Notice)]
    announced = next(k for k, i in enumerate(events) if isinstance(i, m.Notice)
                     and isinstance(i.payload, m.GameChanged))
    assert sum(isinstance(i, m.Rejection) for i in events[:announced]) == 6
    assert [c.game for c in _changes(chooser)] == ["F7S"] and _games(chooser) == ["F7S"] * 2


def test_a_silent_chooser_gets_the_menus_next_game_and_a_timeout() -> None:
    """§28: silence past `choice_seconds` (the time bank untouched) gets the menu's next game
    after the current one; the seat is told the decision closed and a timeout is reported."""
    faults: list[BotFault] = []
    bots = _play(_spec(hands=4, choice_seconds=0.5, time_bank_seconds=30.0),
                 {"b0": lambda p, n: [], "b1": lambda p, n: []}, faults)
    changes = _changes(bots["b0"])
    assert [(c.game, c.automatic) for c in changes] == [("FT", m.AutoReason.TIMEOUT),
                                                         ("F7S", m.AutoReason.TIMEOUT)]
    closed = [c for b in bots.values() for _, c in b.items(DecisionClosed)]
    assert len(closed) == 2 and all(isinstance(c, DecisionClosed) and c.reason is CloseReason.TIMEOUT
                                    and c.action is ActionKind.CHOOSE_GAME for c in closed)
    assert len(faults) == 2 and all("the dealer chose" in f.detail and f.street == "game choice"
                                    for f in faults)
    # The bank was not spent: the hands' requests still offer all 30 s of it.
    hand_prompts = [p for b in bots.values() for _, p in b.items(m.Prompt)
                    if isinstance(p, m.Prompt) and p.street != "game choice"]
    assert hand_prompts and all(p.time_bank_left_seconds == 30.0 for p in hand_prompts)


def test_an_absent_chooser_gets_the_default() -> None:
    """§28: a chooser that is not connected is not asked: the default, marked absent."""
    spec = MatchSpec("dc", (SeatSpec("b0", "b0"), SeatSpec("b1", "b1")),
                     Rules.from_mapping({"games": list(MENU), "dealers_choice": True}), 4, seed=17,
                     start_timeout_seconds=1.0, absent=AbsentPolicy.CHECK_FOLD)
    bots = _play(spec, {"b0": choose("FR"), "b1": choose("FR")}, attached=("b0",))
    changes = _changes(bots["b0"])
    absent_seat = 1
    for change in changes:
        if change.chooser_seat == absent_seat:
            assert change.automatic is m.AutoReason.ABSENT
            assert change.game == (MENU[(MENU.index(change.previous_game) + 1) % 3]
                                   if change.previous_game else "FT")
        else:
            assert change.automatic is None and change.game == "FR"
    assert {c.chooser_seat for c in changes} == {0, 1}


def test_the_choice_moves_round_the_table_each_orbit() -> None:
    """§28: the first orbit's chooser has the button; then one seat clockwise each orbit."""
    bots = _play(_spec(seats=3, hands=9), {f"b{k}": choose(MENU[k]) for k in range(3)})
    changes = _changes(bots["b0"])
    starts = {}
    for _, notice in bots["b0"].notices(m.HandStarted):
        assert isinstance(notice.payload, m.HandStarted)
        starts[notice.payload.hand_number] = notice.payload.button_seat
    choosers = [c.chooser_seat for c in changes]
    assert [c.first_hand_number for c in changes] == [1, 4, 7]
    assert choosers[0] == starts[1]
    assert choosers == [(choosers[0] + k) % 3 for k in range(3)]
    assert _games(bots["b0"]) == [MENU[s] for s in choosers for _ in range(3)]


def test_a_strategy_over_the_menu_is_drawn_the_same_way_each_time() -> None:
    """§28 with §19: a strategy over CHOOSE_GAME actions is drawn with the match's key: the
    same seed draws the same games; every drawn game is one of positive weight."""
    def mixed(p: m.Prompt, _n: int) -> list[m.Reply]:
        return [m.Reply(decision_id=p.decision_id, seat=p.seat, kind=None, raise_to_chips=None,
                        strategy=((ActionKind.CHOOSE_GAME, None, 0.5),
                                  (ActionKind.CHOOSE_GAME, None, 0.0),
                                  (ActionKind.CHOOSE_GAME, None, 0.5)),
                        strategy_games=("FT", "F7S", "FR"))]

    runs = [[c.game for c in _changes(_play(_spec(hands=12), {"b0": mixed, "b1": mixed})["b0"])]
            for _ in range(2)]
    assert runs[0] == runs[1] and len(runs[0]) == 6
    assert set(runs[0]) <= {"FT", "FR"}


def test_a_resumed_match_chooses_for_the_rest_of_its_orbit() -> None:
    """§28: a match resumed mid-orbit asks that orbit's chooser again, for its remaining hands
    (the default then the menu's first game)."""
    spec = _spec(seats=3, hands=7)
    from dataclasses import replace

    resumed = replace(spec, first_hand=4)  # hand 5 of orbit 2 (hands 4-6)
    bots = _play(resumed, {f"b{k}": choose(MENU[k]) for k in range(3)})
    changes = _changes(bots["b0"])
    assert [(c.first_hand_number, c.hands) for c in changes] == [(5, 2), (7, 1)]
    buttons = {}
    for _, notice in bots["b0"].notices(m.HandStarted):
        assert isinstance(notice.payload, m.HandStarted)
        buttons[notice.payload.hand_number] = notice.payload.button_seat
    first_button = (buttons[5] - 4) % 3  # the button moved on one seat a hand
    assert changes[0].chooser_seat == (first_button + 1) % 3  # orbit 2's chooser
    assert changes[1].chooser_seat == (first_button + 2) % 3
    assert _games(bots["b0"]) == [MENU[changes[0].chooser_seat]] * 2 + [
        MENU[changes[1].chooser_seat]]


def test_duplicate_copies_of_dealers_choice_are_refused() -> None:
    from dataclasses import replace

    from arena.match.live import LiveTable

    with pytest.raises(ArenaError, match="cannot be dealt as duplicate copies"):
        LiveTable(replace(_spec(), copies_total=2), Lobby())
