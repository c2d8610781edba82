"""The interpreter settings a dealer process runs with (`serve()` and `arena worker` alike)."""
from __future__ import annotations

import gc
import sys

import pytest

from arena.host.process import tuned_for_dealing

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def test_dealer_tuning_applies_and_restores_the_settings() -> None:
    thresholds, switch_seconds = gc.get_threshold(), sys.getswitchinterval()
    with tuned_for_dealing():
        assert gc.get_threshold() == (20_000, 50, 100)
        assert sys.getswitchinterval() == pytest.approx(0.001)
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == thresholds
    assert sys.getswitchinterval() == switch_seconds
    assert gc.get_freeze_count() == 0


def test_dealer_tuning_is_restored_after_an_error() -> None:
    thresholds, switch_seconds = gc.get_threshold(), sys.getswitchinterval()
    with pytest.raises(RuntimeError), tuned_for_dealing():
        raise RuntimeError("the dealer failed")
    assert (gc.get_threshold(), sys.getswitchinterval()) == (thresholds, switch_seconds)
