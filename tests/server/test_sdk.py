"""The Python bot SDK stands alone: its copy of the contract is fresh and it never imports arena."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from arena_bot import handeval as he

from arena.engine import evaluate as ev
from arena.engine.cards import format_card
from tests.server.procs import ROOT

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass

SDK = ROOT / "bots" / "python"

_CLASSES = {
    he.STRAIGHT_FLUSH: ev.HandClass.STRAIGHT_FLUSH, he.QUADS: ev.HandClass.FOUR_OF_A_KIND,
    he.FULL_HOUSE: ev.HandClass.FULL_HOUSE, he.FLUSH: ev.HandClass.FLUSH,
    he.STRAIGHT: ev.HandClass.STRAIGHT, he.TRIPS: ev.HandClass.THREE_OF_A_KIND,
    he.TWO_PAIR: ev.HandClass.TWO_PAIR, he.PAIR: ev.HandClass.ONE_PAIR,
    he.HIGH_CARD: ev.HandClass.HIGH_CARD,
}


def test_the_sdk_copy_of_the_wire_contract_is_fresh() -> None:
    out = subprocess.run([sys.executable, str(SDK / "sync_protos.py"), "--check"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr


def test_the_sdk_imports_without_arena(tmp_path: os.PathLike[str]) -> None:
    code = ("import sys, arena_bot, arena_bot.cli, arena_bot.examples\n"
            "assert not any(m == 'arena' or m.startswith('arena.') for m in sys.modules)\n")
    env = {**os.environ, "PYTHONPATH": str(SDK)}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr


def test_the_tiny_evaluator_agrees_with_the_engine_on_hand_classes() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        cards = rng.sample(range(52), 7)
        mine = he.best_high([format_card(c) for c in cards])
        assert _CLASSES[mine[0]] == ev.hand_class(ev.high_value(cards))
        low = he.best_low([format_card(c) for c in cards], eight=True)
        assert (low is None) == (ev.low8_value(cards) is None)


def test_a_seeded_random_bot_answers_each_decision_the_same_in_any_order() -> None:
    """The demo's random bots play many tables at once: their choices must not depend on the
    order in which the tables ask."""
    from arena_bot._proto import arena_pb2 as sdk_pb
    from arena_bot.examples import random_bot
    from arena_bot.view import SeatView

    def request(decision_id: str) -> SeatView:
        legal = [sdk_pb.LegalAction(kind=k) for k in (sdk_pb.ACTION_KIND_FOLD, sdk_pb.ACTION_KIND_CALL)]
        legal.append(sdk_pb.LegalAction(kind=sdk_pb.ACTION_KIND_RAISE, min_raise_to_chips=40,
                                        max_raise_to_chips=40))
        return SeatView(sdk_pb.DecisionRequest(decision_id=decision_id, legal_actions=legal))

    ids = [f"t{k}-h1-d{k}" for k in range(40)]
    forward = random_bot(7, per_decision=True)
    backward = random_bot(7, per_decision=True)
    first = {d: forward(request(d)) for d in ids}
    second = {d: backward(request(d)) for d in reversed(ids)}
    assert first == second
    assert len({a.kind for a in first.values()}) == 3  # still random over the legal kinds


def test_arena_bot_checks_the_dealer_address_before_dialing(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`--server 127.0.0.1` dialed port 443 and `127.0.0.1:99999` port 34463, each for 10 s:
    both are usage errors now, in `arena-bot` and `arena bot` alike."""
    from arena_bot.cli import main as sdk_main
    from arena_bot.cli import server_address

    from arena.cli import main as arena_main

    commands = ((sdk_main, ["call"]), (arena_main, ["bot", "call"]))
    for bad in ("127.0.0.1", "127.0.0.1:99999", "127.0.0.1:0", "::1:50051", ":50051", "[]:1",
                "h:5x"):
        for main, words in commands:
            with pytest.raises(SystemExit) as exit_:
                main([*words, "--server", bad, "--token", "t" * 12])
            assert exit_.value.code == 2, bad
            err = capsys.readouterr().err
            assert "--server: must be HOST:PORT with a port from 1 to 65535" in err, (bad, err)
    for good in ("127.0.0.1:50051", "[::1]:1", "dealer.example.org:65535"):
        assert server_address(good) == good


def test_arena_bot_reads_arena_token_as_arena_bot_does(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/python-sdk.md: `arena-bot` and `arena bot` take the same options; the token may come
    from ARENA_TOKEN (out of the process list) instead of --token."""
    from arena_bot.cli import main as sdk_main

    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    assert sdk_main(["call", "--server", "127.0.0.1:1"]) == 2
    assert "arena-bot: error: give --token or set ARENA_TOKEN" in capsys.readouterr().err
    monkeypatch.setenv("ARENA_TOKEN", "t" * 12)
    assert sdk_main(["call", "--server", "127.0.0.1:1", "--connect-seconds", "0.2"]) == 2
    assert "cannot reach the dealer at 127.0.0.1:1" in capsys.readouterr().err
