"""Bot authentication: the ``authorization: Bearer <token>`` metadata of every Play call."""

from __future__ import annotations

import hmac
from collections.abc import Iterable

from arena.server.config import BotEntry
from arena.server.errors import NotKnownYet, Unauthenticated

METADATA_KEY = "authorization"


class TokenBook:
    """Looks a token up in constant time per known bot (no early exit on a match)."""

    def __init__(self, bots: Iterable[BotEntry], *, unknown_may_come: bool = False) -> None:
        """``unknown_may_come``: bots are added while serving (a worker learns a league's bots
        when the league is queued), so an unknown token is refused as :class:`NotKnownYet`
        (retryable) rather than :class:`Unauthenticated` (final)."""
        self._bots = [(b.token.encode(), b) for b in bots]
        self._unknown_may_come = unknown_may_come

    def add(self, bots: Iterable[BotEntry]) -> None:
        """Admit more bots; a bot already known (same id) keeps its entry."""
        known = {b.bot_id for _, b in self._bots}
        self._bots += [(b.token.encode(), b) for b in bots if b.bot_id not in known]

    def remove(self, bot_ids: Iterable[str]) -> None:
        """Forget bots (a hosted instance whose match has ended): their tokens stop working."""
        gone = set(bot_ids)
        self._bots = [(token, b) for token, b in self._bots if b.bot_id not in gone]

    def token_of(self, bot_id: str) -> str | None:
        return next((b.token for _, b in self._bots if b.bot_id == bot_id), None)

    def identify(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> BotEntry:
        """The bot of the call's token, or :class:`Unauthenticated` saying what is wrong."""
        header: str | None = None
        for key, value in metadata or ():
            if key.lower() == METADATA_KEY:
                header = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
                break
        if header is None:
            raise Unauthenticated("missing 'authorization: Bearer <token>' metadata")
        scheme, _, token = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthenticated("malformed authorization metadata; expected 'Bearer <token>'")
        given = token.strip().encode()
        found: BotEntry | None = None
        for known, bot in self._bots:
            if hmac.compare_digest(given, known):
                found = bot
        if found is None and self._unknown_may_come:
            raise NotKnownYet("unknown token: no league this worker deals has it (yet); a bot of a "
                              "league not queued yet may retry until the coordinator queues it")
        if found is None:
            raise Unauthenticated("unknown token")
        return found
