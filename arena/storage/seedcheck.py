"""Check a match seed against the league's commitment: the league secret (published when the
league ended) must hash to the commitment (published when it started), and the match seed must
be the one derived from that secret for the match's deal set."""

from __future__ import annotations

import json
from pathlib import Path

from arena.engine.errors import ReplayMismatch
from arena.engine.seeds import derive_secret, matches_commitment
from arena.storage.matchlog import read_result

SECRET_FILE = "league-secret.json"


def league_seed(hands_path: Path, revealed: int | None, deal_set: str) -> tuple[int | None, str]:
    """The seed a match log's hands are verified against, and what was checked of it (a note
    that says "not checked" when the log has no commitment or its secret is not published yet).

    With a ``revealed`` seed (the results file's), that seed, checked against the league secret
    published beside the log. Without one (the copy ended on this worker while its deal set
    ended on another, or it was cut off), the seed of ``deal_set`` derived from that secret,
    checked against the commitment its file and the results file (if any) name; or None and
    why, when no secret is published. :class:`ReplayMismatch` when something disagrees: an
    unreadable secret file, a secret that does not hash to a commitment, a seed it does not give."""
    result = read_result(hands_path) or {}
    committed = result.get("seed_commitment")
    if revealed is not None:
        logged_set = result.get("deal_set")
        if not isinstance(committed, str) or not isinstance(logged_set, str):
            return revealed, "no league commitment in the results file: seed not checked against one"
        deal_set = logged_set
    secret_path = hands_path.parent / SECRET_FILE
    if not secret_path.exists():
        return revealed, (f"league secret not published yet ({SECRET_FILE}): commitment not checked"
                          if revealed is not None else
                          f"no match seed revealed and no league secret published ({SECRET_FILE})")
    try:
        published = json.loads(secret_path.read_text(encoding="utf-8"))
        secret = int(published["secret"])
        commitments = [str(committed)] if revealed is not None else \
            [str(published["commitment"]), *([committed] if isinstance(committed, str) else [])]
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        raise ReplayMismatch(f"{secret_path}: not a league secret file ({exc})") from None
    for commitment in commitments:
        if not matches_commitment(secret, commitment):
            raise ReplayMismatch(f"{secret_path}: the league secret does not match the commitment "
                                 f"{commitment}" + (" published when the league started"
                                                    if revealed is not None else ""))
    seed = derive_secret(secret, "deal-set", deal_set)
    if revealed is None:
        return seed, (f"seed of deal set {deal_set!r} derived from the league secret, checked "
                      f"against the commitment {commitments[0]}")
    if seed != revealed:
        raise ReplayMismatch(f"the match seed is not the one the league secret gives deal set "
                             f"{deal_set!r}")
    return seed, f"seed checked against the league commitment {committed}"
