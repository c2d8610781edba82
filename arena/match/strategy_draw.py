"""The dealer's step for a strategy reply (issue 40, docs/house-rules.md §19): validate the
declared strategy against the decision, draw its action with the match copy's key, tell the
feed, and apply the drawn action through the engine (the one legality path)."""

from __future__ import annotations

from arena.engine.state import HandState
from arena.engine.strategy import draw_strategy, strategy_key
from arena.engine.strategy_log import StrategyRecord, record_of
from arena.match import messages as m
from arena.match.feed import HandFeed


class StrategyDrawer:
    """One match copy's draws; its key (secret until the match seed is revealed) made once."""

    __slots__ = ("_copy_index", "_key", "_seed")

    def __init__(self, seed: int | str, copy_index: int) -> None:
        self._seed = seed
        self._copy_index = copy_index
        self._key: int | None = None

    @property
    def key(self) -> int:
        """The copy's secret drawing key (made on first use)."""
        if self._key is None:
            self._key = strategy_key(self._seed, self._copy_index)
        return self._key

    def apply(self, state: HandState, feed: HandFeed, engine_seat: int, reply: m.Reply,
              hand_number: int) -> StrategyRecord:
        """Draw and apply; raises (changing nothing) for a strategy that is not valid here.
        Returns what the hand log keeps of the draw."""
        assert reply.strategy is not None
        if self._key is None:
            self._key = strategy_key(self._seed, self._copy_index)
        draw = draw_strategy(state, engine_seat, reply.strategy, key=self._key,
                             hand_number=hand_number)
        record = record_of(draw, engine_seat)
        feed.note_action(reply.decision_id, None, tuple(zip(record.actions, record.weights,
                                                            strict=True)))
        state.act(engine_seat, draw.action.kind, draw.action.raise_to_chips)
        return record
