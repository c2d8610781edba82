"""Check a revealed match seed against the league's commitment: the league secret (published
when the league ended) must hash to the commitment (published when it started), and the match
seed must be the one derived from that secret for the match's deal set."""

from __future__ import annotations

import json
from pathlib import Path

from arena.engine.seeds import derive_secret, matches_commitment
from arena.storage.matchlog import MatchLogPaths, read_result

SECRET_FILE = "league-secret.json"


def seed_from_secret(hands_path: Path, deal_set: str) -> tuple[int | None, str, bool]:
    """A match seed that no results file beside the log reveals (the copy ended on this worker
    while its deal set ended on another, or it was cut off), derived from the league secret
    published beside the log for ``deal_set``: (seed, what was checked, False), or (None, why
    not, whether something disagrees: a secret that does not hash to the commitment its file and
    the results file (if any) name, an unreadable secret file)."""
    secret_path = MatchLogPaths.beside(hands_path).result.parent / SECRET_FILE
    if not secret_path.exists():
        return None, f"no match seed revealed and no league secret published ({SECRET_FILE})", False
    try:
        published = json.loads(secret_path.read_text(encoding="utf-8"))
        secret = int(published["secret"])
        committed = str(published["commitment"])
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        return None, f"{secret_path}: not a league secret file ({exc})", True
    result = read_result(hands_path) or {}
    claimed = result.get("seed_commitment")
    for commitment in (committed, *([claimed] if isinstance(claimed, str) else [])):
        if not matches_commitment(secret, commitment):
            return None, (f"{secret_path}: the league secret does not match the commitment "
                          f"{commitment}"), True
    return derive_secret(secret, "deal-set", deal_set), \
        f"seed of deal set {deal_set!r} derived from the league secret, checked against the " \
        f"commitment {committed}", False


def check_seed(hands_path: Path, match_seed: int) -> tuple[bool, str]:
    """(ok, what was checked). Not ok only when something disagrees; a log without a
    commitment, or whose league secret is not published yet, is ok with a note saying so."""
    result = read_result(hands_path) or {}
    committed = result.get("seed_commitment")
    deal_set = result.get("deal_set")
    if not isinstance(committed, str) or not isinstance(deal_set, str):
        return True, "no league commitment in the results file: seed not checked against one"
    secret_path = MatchLogPaths.beside(hands_path).result.parent / SECRET_FILE
    if not secret_path.exists():
        return True, f"league secret not published yet ({SECRET_FILE}): commitment not checked"
    try:
        published = json.loads(secret_path.read_text(encoding="utf-8"))
        secret = int(published["secret"])
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        return False, f"{secret_path}: not a league secret file ({exc})"
    if not matches_commitment(secret, committed):
        return False, (f"{secret_path}: the league secret does not match the commitment "
                       f"{committed} published when the league started")
    if derive_secret(secret, "deal-set", deal_set) != match_seed:
        return False, (f"the match seed is not the one the league secret gives deal set "
                       f"{deal_set!r}")
    return True, f"seed checked against the league commitment {committed}"
