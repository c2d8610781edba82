"""A calling station whose policy file the package's build wrote."""

from pathlib import Path

from arena_bot import Action, SeatView

POLICY = Path(__file__).with_name("policy.txt").read_text().strip()


def decide(view: SeatView) -> Action:
    if POLICY == "call":
        return view.check_or_call()
    return view.check_or_fold()
