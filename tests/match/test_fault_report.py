"""A bot's faults by cause (arena/match/fault_report.py, `arena practice`'s summary): the first
few of each cause in full, with hand and seat, then counts."""

from __future__ import annotations

from arena.match.fault_report import SHOWN, SHOWN_TRACEBACKS, report
from arena.match.faults import BotFault, FaultKind, bounded_detail


def _fault(kind: FaultKind, k: int, detail: str, seconds: float = 0.0) -> BotFault:
    return BotFault(bot_id="you", kind=kind, decision_id=f"m-h{k}-d1", match_id="m",
                    hand_number=k, seat=k % 2, street="flop", detail=detail, seconds=seconds)


def test_the_first_faults_of_each_cause_in_full_then_counts_by_reason() -> None:
    rejected = [_fault(FaultKind.REJECTED, k, f"raise to {40 + k} is not legal; raise to 40; "
                       "allowed: call (to 20), raise to 40 or fold") for k in range(1, 8)]
    rejected.append(_fault(FaultKind.REJECTED, 9, "seat 1 may not check: 20 to call; allowed: "
                           "fold, call (to 20), raise to 40"))
    traceback = ("Traceback (most recent call last):\n  File \"bot.py\", line 3, in decide\n"
                 "ZeroDivisionError: division by zero\n")
    exceptions = [_fault(FaultKind.EXCEPTION, k, traceback) for k in range(10, 14)]
    timeouts = [_fault(FaultKind.TIMEOUT, k, f"no answer within {1 + k / 100:.2f} s; the dealer "
                       "folded for the seat", seconds=1 + k / 100) for k in range(20, 27)]
    fallbacks = [_fault(FaultKind.FALLBACK, k, "rejected: ...") for k in range(1, 9)]
    lines = "\n".join(report([*rejected, *exceptions, *timeouts, *fallbacks]))
    assert lines.startswith("faults of your bot: 8 rejected replies, 4 exceptions, 7 timeouts\n")
    # Rejections: the first SHOWN with reason, hand and seat, then every one counted by reason.
    assert lines.count("allowed: call (to 20), raise to 40 or fold\n      at hand ") == SHOWN
    assert ("    raise to 41 is not legal; raise to 40; allowed: call (to 20), raise to 40 or fold\n"
            "      at hand 1, seat 1, flop (decision m-h1-d1)\n") in lines
    assert ("    ... 3 more; every rejection by reason:\n"
            "      7 x raise to N is not legal; raise to N\n"
            "      1 x seat N may not check: N to call\n") in lines
    assert "your SDK answered 8 of them with its check/fold fallback" in lines
    # Exceptions: SHOWN_TRACEBACKS tracebacks, then counts by their last line.
    assert lines.count("Traceback (most recent call last):") == SHOWN_TRACEBACKS
    assert "    at hand 10, seat 0, flop (decision m-h10-d1):\n      Traceback" in lines
    assert "... 1 more; every exception by its last line:\n" \
           "      4 x ZeroDivisionError: division by zero" in lines
    # Timeouts: each with its decision and how long it was open, then the rest counted.
    assert "    hand 20, seat 0, flop (decision m-h20-d1): no answer within 1.20 s" in lines
    assert "... 2 more (the slowest open 1.26 s)" in lines


def test_one_of_each_reads_in_the_singular_and_none_says_so() -> None:
    one = report([_fault(FaultKind.TIMEOUT, 1, "no answer within 1.00 s", 1.0),
                  _fault(FaultKind.REJECTED, 2, "bad"), _fault(FaultKind.EXCEPTION, 3, "E: x")])
    assert one[0] == "faults of your bot: 1 rejected reply, 1 exception, 1 timeout"
    assert report([], name="bob") == ["faults of bob: none (no rejection, exception or timeout)"]


def test_a_detail_is_bounded_printable_and_keeps_its_end() -> None:
    text = bounded_detail("\x1b[31m" + "x" * 5000 + "\nValueError: the end")
    assert len(text) == 2000 and text.startswith("...") and text.endswith("ValueError: the end")
    assert "\x1b" not in bounded_detail("a\x1bb\tc\nd") and bounded_detail("a\x1bb\tc\nd") == "a?b\tc\nd"
