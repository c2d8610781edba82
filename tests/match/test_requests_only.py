"""Tables whose seats all take requests and results only (Hello.subscription) number their
events exactly as tables telling every event do: events nobody is told still count."""

from __future__ import annotations

from arena.engine.rules import Rules
from arena.match.spec import MatchSpec, SeatSpec
from tests.match.scripted import ScriptedBot, play_with_scripted_bots


class _RequestsOnly(ScriptedBot):
    every_event = False


def _notices(bot_class: type[ScriptedBot]) -> dict[str, list[tuple[int, str]]]:
    spec = MatchSpec("t", tuple(SeatSpec(n, n) for n in ("a", "b", "c")), Rules(), 10, 7)
    bots = play_with_scripted_bots(spec, ("a", "b", "c"), bot_class)
    return {name: [(n.sequence, type(n.payload).__name__) for _, n in bot.notices(object)]
            for name, bot in bots.items()}


def test_requests_only_seats_see_the_same_sequence_numbers() -> None:
    every = _notices(ScriptedBot)
    cheap = _notices(_RequestsOnly)
    for name, seen in cheap.items():
        told = {seq for seq, _ in seen}
        assert told < {seq for seq, _ in every[name]}  # fewer events, none of them new
        same = [(seq, kind) for seq, kind in every[name] if seq in told]
        # HandEnded goes as a HandSummary to requests-only seats, at the same number.
        assert [(s, k.replace("HandSummary", "HandEnded")) for s, k in seen] == same
        assert {k for _, k in seen} >= {"HandStarted", "HandSummary", "MatchEnded"}
        assert "ActionAnnounced" not in {k for _, k in seen}
