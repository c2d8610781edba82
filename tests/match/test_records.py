"""The typed hand record and the storage match log: PHH fields rendered once, files read back."""

from __future__ import annotations

import json
from pathlib import Path

from arena.engine.actions import ActionKind
from arena.engine.cards import derive_seed
from arena.engine.games import variant_for
from arena.engine.phh import dumps_hand
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.host.phhfile import load_file
from arena.match.messages import MatchSeatResult
from arena.match.records import (
    DecisionTimings,
    HandContext,
    MatchSummary,
    PlayedHand,
    TableStats,
    phh_fields,
)
from arena.server.eventrecord import LogRecords, read_events
from arena.storage.matchlog import (
    MatchLog,
    MatchLogPaths,
    catch_up,
    clear_in_flight,
    hand_in_flight,
    match_seed_for,
)
from arena.storage.verify import verify_hand

SEED = 11


def _hand(*, void_reason: str = "") -> PlayedHand:
    rules = Rules()
    state = HandState(variant_for("FT"), [200, 200, 200], rules=rules,
                      seed=derive_seed(SEED, "hand", 0))
    if not void_reason:
        while not state.is_over:
            actor = state.actor
            assert actor is not None
            kind = ActionKind.CHECK if state.legal_actions().can_check else ActionKind.CALL
            state.act(actor, kind)
    ctx = HandContext(match_id="m/1", hand_id="m/1-h1", hand_number=1, game_hand_number=1,
                      hands_per_game=3, button_seat=2, order=(0, 1, 2), names=("a", "b", "c"),
                      bot_ids=("A", "B", "C"), table_stacks=(200, 200, 200), rules=rules,
                      deal_id="m/1/deal-1")
    timings = DecisionTimings(action_seconds=(0.5,), wire_seconds=(-1.0,), think_seconds=(0.25,),
                              timeouts=(0, 1, 0), absent=(0, 0, 0))
    return PlayedHand(ctx, state, timings, void_reason)


def _summary(*, aborted: bool) -> MatchSummary:
    results = tuple(MatchSeatResult(seat=p, name=n, bot_id=n.upper(), net_chips=0, hands_played=1,
                                    mbb_per_hand=0.0, mbb_per_hand_ci95=0.0, final_stack_chips=200)
                    for p, n in enumerate("abc"))
    return MatchSummary("m/1", SEED, 1, results, aborted, "stopped" if aborted else "", (),
                        TableStats())


def test_phh_fields_carry_the_arena_fields_typed_in_the_record() -> None:
    hand = _hand()
    fields = phh_fields(hand)
    assert fields["players"] == ["a", "b", "c"]
    assert fields["_match_id"] == "m/1" and fields["_hand"] == 1
    assert fields["_bot_ids"] == ["A", "B", "C"] and fields["_seats"] == [0, 1, 2]
    assert fields["_timeouts"] == [0, 1, 0] and fields["_think_seconds"] == [0.25]
    assert "_voided" not in fields and fields["finishing_stacks"] == hand.state.stacks
    voided = phh_fields(_hand(void_reason="dealer error"))
    assert voided["_voided"] is True and voided["_void_reason"] == "dealer error"
    assert "finishing_stacks" not in voided


def test_match_log_writes_what_replay_reads_back(tmp_path: Path) -> None:
    log = MatchLog(tmp_path, "m/1")
    log.hand_finished(_hand())
    log.hand_finished(_hand(void_reason="stopped"))
    log.match_finished(_summary(aborted=False))
    paths = MatchLogPaths.of(tmp_path, "m/1")
    assert paths.hands.name == "m_1.phhs" and MatchLogPaths.beside(paths.hands) == paths
    [hand] = load_file(str(paths.hands))
    [void] = load_file(str(paths.voids))
    assert void.fields["_void_reason"] == "stopped"
    assert json.loads(paths.result.read_text())["match_seed"] == SEED
    assert match_seed_for(paths.hands) == SEED
    state, mismatch = verify_hand(hand, SEED, Rules())
    assert mismatch is None and state is not None and state.is_over


def test_a_resumable_log_numbers_on_and_keeps_an_aborted_seed_secret(tmp_path: Path) -> None:
    for _ in range(2):
        log = MatchLog(tmp_path, "m/1", resumable=True)
        log.hand_started("m/1", 1)
        paths = log.paths
        assert hand_in_flight(paths, unreadable=0) == 1
        log.write_hand(_hand(), dumps_hand(phh_fields(_hand())))
        assert hand_in_flight(paths, unreadable=0) is None
        log.match_finished(_summary(aborted=True))
    assert [h.name for h in load_file(str(paths.hands))] == [f"{paths.hands}[1]",
                                                             f"{paths.hands}[2]"]
    assert not paths.result.exists() and match_seed_for(paths.hands) is None
    paths.inflight.write_text("garbage")
    assert hand_in_flight(paths, unreadable=7) == 7
    clear_in_flight(paths)
    assert not paths.inflight.exists()


def test_catch_up_appends_the_committed_hands_a_killed_dealer_did_not_log(tmp_path: Path) -> None:
    """The dealer can die between committing a hand and logging it: on resume the log gets
    exactly the committed hands it lacks, numbered on, and nothing twice."""
    texts = [dumps_hand(phh_fields(_hand())) for _ in range(3)]
    log = MatchLog(tmp_path, "m/1", resumable=True)
    log.write_hand(_hand(), texts[0])
    log.close()
    paths = log.paths
    assert catch_up(paths, texts, records=LogRecords()) == 2
    assert catch_up(paths, texts, records=LogRecords()) == 0
    hands = load_file(str(paths.hands))
    assert [h.name for h in hands] == [f"{paths.hands}[{k}]" for k in (1, 2, 3)]
    # Their events went with their PHH text: the event log says which hands may lack them.
    (gap,) = list(read_events(paths.events))
    assert gap["gap"]["hand_ids"] == [str(h.fields["_hand_id"]) for h in hands[1:]]
    assert "restored from the results store" in gap["gap"]["reason"]
    assert paths.events.stat().st_mode & 0o077 == 0
