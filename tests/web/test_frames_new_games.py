"""The replayer's steps for issue 42's games (no browser): an exchange is the step of its `pN sd`
line; a running match's replay never shows a discard (docs/house-rules.md §21: discards are dead
and never shown) nor a down card not shown at the showdown; English Stud's up cards are public."""

from __future__ import annotations

import json
import random
from pathlib import Path

from arena.engine.actions import ActionKind
from arena.engine.cards import format_card
from arena.engine.events import CardsExchanged, HandShown
from arena.engine.games import variant_for
from arena.engine.phh import loads, replay
from arena.engine.phhtext import dumps_hands, hand_fields
from arena.engine.state import HandState
from arena.match.simulate import simulate
from arena.web.frames import hand_steps


def _hands(tmp_path: Path, game: str, *, seed: int = 2) -> list:  # type: ignore[type-arg]
    simulate(game=game, players=4, hands=25, seed=seed, out_dir=str(tmp_path), policy="random")
    return loads((tmp_path / "hands.phhs").read_text())


def test_exchange_steps_sit_at_their_sd_lines(tmp_path: Path) -> None:
    exchanges = 0
    for hand in _hands(tmp_path, "F2L3D"):
        steps = hand_steps(hand, reveal=True, with_equity=False)["steps"]
        actions = hand.fields["actions"]
        assert steps[-1]["a"] == len(actions) + 1
        for step in steps:
            if step["kind"] == "exchange":
                exchanges += 1
                seat = step["exchange"]["seat"]
                gave = "".join(c for c, _ in step["exchange"]["gave"])
                assert actions[step["a"] - 1] == f"p{seat + 1} sd{' ' + gave if gave else ''}"
            elif step["kind"] == "decision":
                assert actions[step["a"] - 1].split()[1] in ("f", "cc", "cbr")
    assert exchanges > 20


def _drawing_to_showdown(count: int) -> list:  # type: ignore[type-arg]
    """2-7 triple draw hands whose players draw one or two cards and call down."""
    rng = random.Random(5)
    texts = []
    for seed in range(count):
        state = HandState(variant_for("F2L3D"), [2000] * 3, seed=seed)
        while not state.is_over:
            legal = state.legal_actions()
            if legal.can_exchange:
                state.exchange(legal.seat, rng.sample(legal.exchangeable, rng.randint(0, 2)))
            else:
                state.act(legal.seat, ActionKind.CHECK if legal.can_check else ActionKind.CALL)
        texts.append(hand_fields(state, players=["a", "b", "c"]))
    return loads(dumps_hands(texts))


def test_a_running_matchs_replay_shows_no_discard() -> None:
    checked = 0
    for hand in _drawing_to_showdown(12):
        state = replay(hand)
        shown = {c for e in state.events if isinstance(e, HandShown) for c in e.cards}
        discarded = {c for e in state.events if isinstance(e, CardsExchanged) for c in e.discarded}
        secret = {format_card(c) for c in discarded - shown}
        text = json.dumps(hand_steps(hand, reveal=False)["steps"])
        assert not [c for c in secret if f'"{c}"' in text], hand.name
        checked += bool(secret and shown)
    assert checked  # hands with both a showdown and discards nobody may see


def test_english_stud_up_card_exchanges_are_public(tmp_path: Path) -> None:
    found = 0
    for hand in _hands(tmp_path, "FES", seed=1):
        for step in hand_steps(hand, reveal=False)["steps"]:
            exchange = step.get("exchange")
            if exchange and exchange["gave"] and exchange["gave"][0][1]:  # an up card
                assert "??" not in {c for c, _ in exchange["gave"] + exchange["got"]}
                assert f"exchanges {exchange['gave'][0][0][0]}" in step["text"]
                found += 1
            elif exchange and exchange["gave"]:
                assert {c for c, _ in exchange["gave"] + exchange["got"]} == {"??"}
                assert "exchanges 1 card" in step["text"]
    assert found
