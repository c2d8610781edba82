"""Each league's deal secret kept in the results store (schema version 7): every worker that deals
the league, on any machine, reads the same 256 bits; bots never see the database."""

from __future__ import annotations

import re

from arena.engine.seeds import SECRET_BITS
from arena.storage.errors import CorruptStore, StoreError
from arena.storage.records import now, timestamp_text
from arena.storage.sqlstore import Db, SqlStore

_HEX_DIGITS = SECRET_BITS // 4
_HEX = re.compile(f"[0-9a-f]{{{_HEX_DIGITS}}}")


def stored_secret(store: SqlStore, league: str) -> int | None:
    """The league's secret, or None when nobody has made it yet."""
    with store.transaction(write=False) as db:
        return _read(db, league)


def keep_secret(store: SqlStore, league: str, value: int) -> int:
    """Keep ``value`` as the league's secret unless one is kept already; returns the kept one (so
    two processes starting the same league at once agree on the first one written)."""
    if not 0 <= value < 2**SECRET_BITS:
        raise ValueError(f"a league secret has {SECRET_BITS} bits")
    with store.transaction(write=True) as db:
        db.execute("INSERT INTO league_secrets (league_name, secret_hex, created_at) VALUES (?, ?, ?) "
                   "ON CONFLICT (league_name) DO NOTHING",
                   (league, f"{value:0{_HEX_DIGITS}x}", timestamp_text(now())))
        kept = _read(db, league)
    if kept is None:
        raise StoreError(f"the secret of league {league!r} was not kept")
    return kept


def _read(db: Db, league: str) -> int | None:
    row = db.execute("SELECT secret_hex FROM league_secrets WHERE league_name = ?", (league,)).fetchone()
    if row is None:
        return None
    text = row["secret_hex"]
    if not isinstance(text, str) or not _HEX.fullmatch(text):
        raise CorruptStore(f"the secret of league {league!r} in the store is not {_HEX_DIGITS} hex digits")
    return int(text, 16)
