"""Sequential probability ratio test on per-deal results (mbb/hand): stop as soon as the data
favour "the true mean is HIGH" over "it is LOW" (or the reverse) at the chosen error rates.

Wald's SPRT for a normal mean, with the variance estimated from the observations so far (the
generalised SPRT that chess engine testing uses): after n observations x_i,
``LLR = (HIGH - LOW) / s² x Σ (x_i - (LOW + HIGH) / 2)``; accept HIGH when
``LLR >= log((1 - beta) / alpha)``, accept LOW when ``LLR <= log(beta / (1 - alpha))``.
``alpha`` is the chance of accepting HIGH when the mean is LOW, ``beta`` the reverse.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

MIN_OBSERVATIONS = 40  # no decision on a variance estimated from fewer observations


class Decision(StrEnum):
    HIGH = "high"  # the mean is at least HIGH: the first bot is better by the upper bound
    LOW = "low"  # the mean is at most LOW


@dataclass(frozen=True, slots=True)
class SprtBounds:
    """The two hypotheses (mbb/hand) and the error rates; validated on construction."""

    low_mbb: float
    high_mbb: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("low_mbb", "high_mbb", "alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise ValueError(f"SPRT {name} must be a finite number, got {value!r}")
        if not self.low_mbb < self.high_mbb:
            raise ValueError(f"SPRT bounds: LOW ({self.low_mbb}) must be below HIGH ({self.high_mbb})")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 0.5:
                raise ValueError(f"SPRT {name} must be between 0 and 0.5, got {getattr(self, name)}")

    @classmethod
    def parse(cls, text: str, *, alpha: float = 0.05, beta: float = 0.05) -> SprtBounds:
        """``"LOW,HIGH"`` in mbb/hand, e.g. ``"0,200"``."""
        parts = text.split(",")
        if len(parts) != 2:
            raise ValueError(f"SPRT bounds must be LOW,HIGH in mbb/hand (e.g. 0,200), got {text!r}")
        try:
            low, high = (float(p) for p in parts)
        except ValueError:
            raise ValueError(f"SPRT bounds must be two numbers LOW,HIGH, got {text!r}") from None
        return cls(low, high, alpha, beta)

    @property
    def accept_low_llr(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def accept_high_llr(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)


class Sprt:
    """The running test: add observations, read the log-likelihood ratio and the decision."""

    def __init__(self, bounds: SprtBounds) -> None:
        self.bounds = bounds
        self.count = 0
        self._mean = 0.0
        self._squares = 0.0
        self.decision: Decision | None = None

    def add(self, value_mbb: float) -> Decision | None:
        """One observation (a deal's result, mbb/hand); returns the decision once there is one
        (later observations do not change it)."""
        if not math.isfinite(value_mbb):
            raise ValueError(f"an SPRT observation must be finite, got {value_mbb!r}")
        self.count += 1
        delta = value_mbb - self._mean
        self._mean += delta / self.count
        self._squares += delta * (value_mbb - self._mean)
        if self.decision is None and self.count >= MIN_OBSERVATIONS:
            llr = self.llr
            if llr >= self.bounds.accept_high_llr:
                self.decision = Decision.HIGH
            elif llr <= self.bounds.accept_low_llr:
                self.decision = Decision.LOW
        return self.decision

    @property
    def mean_mbb(self) -> float:
        return self._mean

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of HIGH against LOW (0 before two observations)."""
        if self.count < 2:
            return 0.0
        variance = self._squares / (self.count - 1)
        if variance <= 0.0:
            variance = 1e-9  # identical observations: any difference from the midpoint decides
        low, high = self.bounds.low_mbb, self.bounds.high_mbb
        return (high - low) / variance * self.count * (self._mean - (low + high) / 2.0)

    def status(self) -> str:
        b = self.bounds
        state = f"accept {self.decision.value}" if self.decision else "continue"
        return (f"n={self.count}  mean={self._mean:+.1f} mbb/hand  LLR={self.llr:+.3f}  "
                f"[{b.accept_low_llr:+.3f}, {b.accept_high_llr:+.3f}]  {state}")
