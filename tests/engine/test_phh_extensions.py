"""PHH logs of issue 42's games (docs/hand-logs.md): 2-7 triple draw in PokerKit's own notation
(`pN sd`, docs/house-rules.md §26), read by PokerKit; the `_` fields of what PHH cannot say
(English Stud's face-up exchanges §25, the wild ranks §23/§24, the games' names), written,
checked by `arena replay` and shown by `arena replay --show`."""

from __future__ import annotations

import io
import re
import tomllib
import warnings
from pathlib import Path

import pytest

from arena.engine.phh import loads
from arena.engine.rules import Rules
from arena.match.simulate import simulate
from arena.storage.replay import replay_paths

HORSE_AND_BLIND_GAMES = ("horse", "NT", "PO")


def _simulated(tmp_path: Path, game: str, *, hands: int = 20, seed: int = 3,
               players: int = 3, rules: Rules | None = None) -> Path:
    simulate(game=game, players=players, hands=hands, seed=seed, out_dir=str(tmp_path),
             policy="random", rules=rules)
    return tmp_path / "hands.phhs"


def _replay(path: Path, *, show: bool = False) -> tuple[int, str]:
    out = io.StringIO()
    code = replay_paths([str(path)], rules=Rules(), show=show, hand_id=None, out=out)
    return code, out.getvalue()


def test_triple_draw_logs_are_read_by_pokerkit(tmp_path: Path) -> None:
    """§21/§26: our 2-7 triple draw log, `arena simulate`'s file as written, is PokerKit's
    notation (`pN sd CARDS`, `pN sd` standing pat, the draws as `d dh`): PokerKit 0.7.7 loads
    every hand and ends it at our finishing stacks (with the keys that make us play as it does)."""
    pytest.importorskip("pokerkit")
    from tests.engine.test_phh_pokerkit import POKERKIT_COMPATIBLE, pokerkit_final_stacks

    rules = Rules().with_overrides(POKERKIT_COMPATIBLE)
    path = _simulated(tmp_path, "F2L3D", hands=40, players=4, rules=rules)
    text = path.read_text()
    assert re.search(r"'p\d sd [2-9TJQKA][cdhs]", text) and re.search(r"'p\d sd'", text)
    ours = [h["finishing_stacks"] for h in tomllib.loads(text).values()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pokerkit_final_stacks(text)
    assert theirs == ours
    assert "_game" not in text  # PokerKit has the game: no name of our own


@pytest.mark.parametrize("game", HORSE_AND_BLIND_GAMES)
def test_the_original_games_get_no_new_fields(tmp_path: Path, game: str) -> None:
    text = _simulated(tmp_path, game, hands=6).read_text()
    for key in ("_game", "_wild_ranks", "_low_wild_ranks", "_face_up_exchanges"):
        assert key not in text


def test_english_stud_face_up_exchanges_are_logged_and_checked(tmp_path: Path) -> None:
    """§25: an up card is exchanged for a new up card; `_face_up_exchanges` names the `sd` lines
    of those exchanges; the replay recomputes it and refuses a log that says otherwise."""
    path = _simulated(tmp_path, "FES", hands=30, seed=1, players=4)
    hands = loads(path.read_text())
    assert all(h.fields["_game"] == "English Stud" for h in hands)
    face_up = [(h, line) for h in hands for line in h.fields["_face_up_exchanges"]]
    assert face_up  # the random policy exchanged some up cards
    for hand, line in face_up:
        assert re.fullmatch(r"p\d sd [2-9TJQKA][cdhs]", hand.fields["actions"][line - 1])
    code, out = _replay(path, show=True)
    assert code == 0
    shown_up = re.findall(r"exchanges ([2-9TJQKA][♣♦♥♠]) for ([2-9TJQKA][♣♦♥♠])", out)
    assert len(shown_up) == len(face_up)
    # A log that moves one mark to another line, or marks nothing, fails with the difference.
    hand, line = face_up[0]
    text = path.read_text()
    lines = text.split("\n")
    number = hands.index(hand) + 1
    index = lines.index(f"[{number}]")
    field = next(i for i in range(index, len(lines)) if lines[i].startswith("_face_up_exchanges"))
    for forged in ("_face_up_exchanges = []", "_face_up_exchanges = [1]",
                   "_face_up_exchanges = 'all'", "_face_up_exchanges = [" + "1, " * 100 + "1]"):
        lines[field] = forged
        path.write_text("\n".join(lines))
        code, out = _replay(path)
        assert code == 1 and f"hands.phhs[{number}]: _face_up_exchanges" in out, out


def test_wild_ranks_are_logged_per_player_and_checked(tmp_path: Path) -> None:
    """§24 Low Hole hi-lo: each player's own wild rank for high and for low, in PHH order."""
    path = _simulated(tmp_path, "FLH/8", hands=12)
    hands = loads(path.read_text())
    for hand in hands:
        high, low = hand.fields["_wild_ranks"], hand.fields["_low_wild_ranks"]
        assert len(high) == len(low) == 3
        assert all(re.fullmatch(r"[2-9TJQKA]", r) for r in high + low)
    assert _replay(path)[0] == 0
    text = path.read_text()
    first = hands[0].fields["_wild_ranks"]
    forged = ["K" if r != "K" else "Q" for r in first]
    path.write_text(text.replace(f"_wild_ranks = {first!r}", f"_wild_ranks = {forged!r}", 1))
    code, out = _replay(path)
    assert code == 1 and f"_wild_ranks says {forged!r}, the replayed hand {first!r}" in out, out


def test_stud_wild_ranks_and_show(tmp_path: Path) -> None:
    """§23: deuces wild (the default) for every player; `--show` says so once."""
    path = _simulated(tmp_path, "F7SW", hands=4)
    for hand in loads(path.read_text()):
        assert hand.fields["_wild_ranks"] == ["2"] * 3
        assert "_low_wild_ranks" not in hand.fields
    code, out = _replay(path, show=True)
    assert code == 0 and out.count("  wild: deuces\n") == 4


def test_a_field_of_another_game_is_refused(tmp_path: Path) -> None:
    path = _simulated(tmp_path, "FLL", hands=2)
    text = path.read_text()
    assert "_game = 'London Lowball'" in text and "_wild_ranks" not in text
    name = "_game = 'London Lowball'"
    path.write_text(text.replace(name, f"{name}\n_wild_ranks = ['2']", 1))
    code, out = _replay(path)
    assert code == 1 and "_wild_ranks is not a field of FLL hands" in out


@pytest.mark.parametrize("code", ["F2L3D", "FES"])
def test_the_next_line_is_where_the_action_is_written(code: str) -> None:
    """docs/faults.md `_fault_lines`: before each player action `phh_next_line` is the line the
    action gets in `actions`: in an exchange round the `sd` lines come before the round's
    `d dh` lines (§26), so an exchange after one that drew cards is not after its draw."""
    import random

    from arena.engine.actions import ActionKind
    from arena.engine.games import variant_for
    from arena.engine.phhtext import phh_actions, phh_next_line
    from arena.engine.state import HandState
    from tests.hands import choices

    rng = random.Random(3)
    checked = 0
    for seed in range(30):
        state = HandState(variant_for(code), [2000] * (2 + seed % 4), seed=seed)
        predicted = []
        while not state.is_over:
            predicted.append(phh_next_line(state))
            legal = state.legal_actions()
            if legal.can_exchange:
                k = rng.randint(0, legal.exchange_max_cards)
                state.exchange(legal.seat, rng.sample(legal.exchangeable, k))
            else:
                options = choices(legal)
                staying = [o for o in options if o[0] is not ActionKind.FOLD]
                kind, amount = rng.choice(staying if staying and rng.random() < 0.9 else options)
                state.act(legal.seat, kind, amount)
        actions = phh_actions(state)
        player_lines = [n for n, a in enumerate(actions, 1) if not a.startswith("d ") and " sm" not in a]
        assert predicted == player_lines, (seed, actions)
        checked += sum(1 for a in actions if " sd " in a)
    assert checked > 20


def test_replay_show_marks_the_exchange_its_fault_line_names(tmp_path: Path) -> None:
    """docs/faults.md: a `_fault_lines` entry naming an `sd` line marks that exchange in
    `arena replay --show`, also after an exchange of the same round that drew cards (its
    `d dh` line is written after the round's last exchange)."""
    from arena.engine.phh import replay
    from arena.storage.show import describe

    path = _simulated(tmp_path, "F2L3D", hands=20, players=4)
    for hand in loads(path.read_text()):
        actions = hand.fields["actions"]
        # The second `sd` line of a round whose first exchange drew cards.
        for n in range(1, len(actions)):
            if " sd " in actions[n - 1] and actions[n].split()[1:2] == ["sd"]:
                fields = {**hand.fields, "_fault_lines": [[n + 1, "timeout"]]}
                lines = describe(replay(hand), hand.fields["players"], fields)
                marked = [t for t in lines if "(timed out)" in t and "legend" not in t]
                seat = int(actions[n].split()[0][1:]) - 1
                assert len(marked) == 1 and f"(p{seat + 1}) " in marked[0], lines
                assert (" stands pat" in marked[0]) == (actions[n] == f"p{seat + 1} sd")
                return
    raise AssertionError("no exchange round with two exchanges, the first drawing")
