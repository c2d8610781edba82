"""The SDK's side of a compiled bot: starts ./policy once and asks it every decision."""

import subprocess
from pathlib import Path

from arena_bot import Action, SeatView

POLICY = subprocess.Popen([str(Path(__file__).with_name("policy"))], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, bufsize=1)


def decide(view: SeatView) -> Action:
    assert POLICY.stdin is not None and POLICY.stdout is not None
    POLICY.stdin.write(f"{view.to_call_chips} {view.pot_chips} {' '.join(view.my_cards)}\n")
    answer = POLICY.stdout.readline().strip()
    if answer == "call" or view.can(Action.CHECK):
        return view.check_or_call()
    return view.check_or_fold()
