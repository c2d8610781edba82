"""The writer process's messages: one too big for a reader is refused when sent (nothing sent)."""

from __future__ import annotations

import pytest

from arena.storage import framing


def test_a_message_bigger_than_a_reader_takes_is_refused_when_framed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framing, "_MAX_MESSAGE_BYTES", 1000)
    assert len(framing.frame(("hand", b"x" * 900))) < 1000
    with pytest.raises(ValueError, match="more than 1000"):
        framing.frame(("hand", b"x" * 1000))
