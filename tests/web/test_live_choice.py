"""The live view of a dealer's-choice match (docs/house-rules.md §28): while a seat chooses, the
table says who is choosing; from the choice on, which seat chose the orbit's game, or that the
dealer chose for it when it timed out. The match is really played (the live table on a fake
clock, scripted bots), its events and decisions told to the hub as the league tells them."""

from __future__ import annotations

import copy

import trio
import trio.testing

from arena.match import messages as m
from arena.match.lobby import Lobby
from arena.match.spectator import TeeSink
from arena.web.choice import choice_view, covers
from arena.web.live import SpectatorHub
from tests.match.test_dealers_choice_table import Chooser, Chooses, _spec, choose


class _Told:
    """Everything a spectator is told, in order."""

    def __init__(self) -> None:
        self.items: list[m.Notice | m.Prompt] = []

    def event_watched(self, notice: m.Notice) -> None:
        self.items.append(notice)

    def decision_opened(self, prompt: m.Prompt) -> None:
        self.items.append(prompt)


def _told(choosers: dict[str, Chooser], **rules: object) -> list[m.Notice | m.Prompt]:
    from arena.match.live import LiveTable

    told = _Told()

    async def main() -> None:
        lobby = Lobby()
        lobby.decision_observers.append(told.decision_opened)
        table = LiveTable(_spec(hands=4, **rules), lobby, sink=TeeSink(None, told))
        bots = {b: Chooses(lobby, b, chooser) for b, chooser in choosers.items()}
        async with trio.open_nursery() as nursery:
            for bot in bots.values():
                bot.attach()
                nursery.start_soon(bot.run)
            await table.run()
            await trio.sleep(1.0)
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return told.items


def _states(items: list[m.Notice | m.Prompt]) -> list[tuple[m.Notice | m.Prompt, dict]]:  # type: ignore[type-arg]
    """The table's state as a spectator sees it after each item."""
    hub = SpectatorHub()
    out = []
    for item in items:
        if isinstance(item, m.Prompt):
            hub.decision_opened(item)
        else:
            hub.event_watched(item)
        (state,) = hub.snapshot()
        out.append((item, copy.deepcopy(state)))
    return out


def test_the_live_table_says_who_chose_each_orbits_game() -> None:
    states = _states(_told({"b0": choose("FR"), "b1": choose("F7S")}))
    seats = next(i.payload.seats for i, _ in states
                 if isinstance(i, m.Notice) and isinstance(i.payload, m.MatchStarted))
    names = [s.name for s in seats]
    choices = [(i.payload, s) for i, s in states
               if isinstance(i, m.Notice) and isinstance(i.payload, m.GameChanged)]
    assert len(choices) == 2
    for change, state in choices:
        assert isinstance(change, m.GameChanged)
        name = names[change.chooser_seat]
        game = {"b0": "FR", "b1": "F7S"}[name]
        assert state["choice"]["chooser"] == name and state["choice"]["game"] == game
        assert state["choice"]["automatic"] is None and state["choosing"] is None
        assert state["choice"]["text"].startswith(f"dealer's choice: {name} chose ")
        assert f"({game}) for hands {change.first_hand_number}-{change.first_hand_number + 1}" \
            in state["choice"]["text"]
    # Before each choice: who is choosing (the request's seat), never its cards or menu default.
    asked = [(i, s) for i, s in states if isinstance(i, m.Prompt) and i.street == "game choice"]
    assert len(asked) == 2
    for prompt, state in asked:
        assert state["choosing"]["name"] == names[prompt.seat]
        assert state["choosing"]["first_hand"] == prompt.hand_number
    # Every hand shows the choice it is dealt under.
    for item, state in states:
        if isinstance(item, m.Notice) and isinstance(item.payload, m.HandStarted):
            assert covers(state["choice"], item.payload.hand_number)
            assert state["game"] == state["choice"]["game"]


def test_a_timed_out_chooser_is_named_and_the_dealer_chose() -> None:
    states = _states(_told({"b0": lambda p, n: [], "b1": lambda p, n: []}, choice_seconds=0.5))
    hands = [s for i, s in states if isinstance(i, m.Notice) and isinstance(i.payload, m.HandStarted)]
    assert len(hands) == 4
    for state in hands:
        choice = state["choice"]
        assert choice["automatic"] == "timeout"
        assert f"{choice['chooser']} timed out; the dealer chose " in choice["text"]


def test_the_wording() -> None:
    names = ["alpha", "beta"]
    assert choice_view(game="FR", chooser_seat=1, automatic=None, first_hand=3, hands=2,
                       names=names)["text"] == "dealer's choice: beta chose Razz (FR) for hands 3-4"
    assert choice_view(game="F2L3D", chooser_seat=0, automatic="absent", first_hand=5, hands=1,
                       names=names)["text"] == ("dealer's choice: alpha was absent; the dealer "
                                                "chose Fixed-limit 2-7 Triple Draw (F2L3D) for hand 5")
