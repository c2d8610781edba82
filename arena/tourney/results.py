"""Tournament results: standings, placings, points and eliminations by hand, as files and text.

A finished run writes ``results.json`` (every event in detail) to the log directory and its
placings to the results store; ``arena tournament standings`` and the leaderboard of a league
file with a tournament format read the store (:func:`standings_document`).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from arena.storage.matchlog import make_private_dir
from arena.storage.records import TournamentPlacing
from arena.tourney.event import EventState
from arena.tourney.formats import FormatResult

OVERALL = "overall"  # the placings row of the standings (points summed, ties settled)


def write_private(path: Path, text: str) -> None:
    """Write atomically (temporary file, fsync, rename), readable by the owner only."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def event_summary(state: EventState) -> dict[str, Any]:
    spec = state.spec
    return {
        "event": spec.event_id,
        "title": spec.title or spec.event_id,
        "players": list(spec.players),
        "starting_stacks": list(spec.stacks) if spec.stacks is not None
        else [spec.starting_stack] * len(spec.players),
        "rounds": state.rounds_done,
        "level_reached": state.clock.index + 1,
        "places": dict(sorted(state.places().items(), key=lambda kv: kv[1])),
        "survivors": [{"player": p, "chips": c} for p, c in state.survivors()]
        if spec.stop_at > 1 else [],
        "eliminations": [e.to_json() for e in state.eliminations],
        "moves": [{"round": r, **asdict(m)} for r, m in state.moves],
        "voided_hands": list(state.voided),
    }


def results_document(*, name: str, kind: str, result: FormatResult,
                     events: Sequence[EventState]) -> dict[str, Any]:
    return {"tournament": name, "format": kind, **result.to_json(),
            "events": [event_summary(s) for s in events]}


def _tournament_number(tournament: str) -> int:
    match = re.fullmatch(r"t(\d+)", tournament)
    return int(match.group(1)) if match else 0


def _numbers(event_id: str) -> tuple[int, ...]:
    """A tie-break's order: "tie12-3" is the third heads-up among bots with 12 points."""
    return tuple(int(n) for n in re.findall(r"\d+", event_id))


def standings_document(*, name: str, kind: str, placings: Sequence[TournamentPlacing]
                       ) -> dict[str, Any]:
    """The standings as the store holds them: the "overall" rows with each tournament's
    placing, the tie-break heads-ups, and every row of the placings table."""
    by_tournament: dict[str, list[TournamentPlacing]] = {}
    for row in placings:
        by_tournament.setdefault(row.tournament, []).append(row)
    counted = sorted((t for t in by_tournament if _tournament_number(t) or t == "freezeout"),
                     key=_tournament_number)
    place_in = {t: {r.bot: r.place for r in by_tournament[t]} for t in counted}
    standings = [{"place": r.place, "player": r.bot, "points": r.points,
                  "placings": [place_in[t][r.bot] for t in counted if r.bot in place_in[t]]}
                 for r in sorted(by_tournament.get(OVERALL, []), key=lambda r: (r.place, r.bot))]
    ties = [{"players": [r.bot for r in sorted(rows, key=lambda r: r.place)],
             "winner": min(rows, key=lambda r: r.place).bot, "event": t}
            for t, rows in sorted(by_tournament.items(), key=lambda kv: _numbers(kv[0]))
            if t.startswith("tie") and len(rows) == 2]
    return {"tournament": name, "format": kind, "standings": standings, "tie_breaks": ties,
            "placings": [asdict(r) for r in placings]}


def render_standings(doc: dict[str, Any]) -> str:
    standings = doc.get("standings", [])
    multi = any(len(s.get("placings", [])) > 1 for s in standings)
    head = f"{'place':>5}  {'bot':<20} {'points':>6}" + ("  placings" if multi else "")
    lines = [f"tournament {doc.get('tournament', '')!r} ({doc.get('format', '')})", head]
    for s in standings:
        line = f"{s['place']:>5}  {s['player']:<20} {s['points']:>6}"
        if multi:
            line += "  " + " + ".join(str(p) for p in s["placings"])
        lines.append(line)
    for tie in doc.get("tie_breaks", []):
        a, b = tie["players"]
        lines.append(f"tie-break {tie['event']}: {a} v {b}, won by {tie['winner']}")
    for event in doc.get("events", []):
        outs = sorted(event["eliminations"], key=lambda e: (e["round"], e["place"]))
        if outs:
            text = ", ".join(f"{e['player']} {e['place']} (t{e['table']} h{e['hand']})"
                             for e in outs)
            lines.append(f"{event['title']}: out in order: {text}")
    by_tournament: dict[str, list[dict[str, Any]]] = {}
    for row in doc.get("placings", []):
        if row["tournament"] != OVERALL and row["eliminated_at_hand"]:
            by_tournament.setdefault(row["tournament"], []).append(row)
    for tournament, rows in sorted(by_tournament.items()):
        text = ", ".join(f"{r['bot']} {r['place']} ({r['eliminated_at_hand']})"
                         for r in sorted(rows, key=lambda r: (-r["place"], r["bot"])))
        lines.append(f"{tournament}: out in order: {text}")
    return "\n".join(lines) + "\n"


def standings_csv(doc: dict[str, Any]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["place", "bot", "points", "placings"])
    for s in doc.get("standings", []):
        writer.writerow([s["place"], s["player"], s["points"], " ".join(map(str, s["placings"]))])
    return buffer.getvalue()


def write_results(log_dir: Path, doc: dict[str, Any]) -> list[Path]:
    make_private_dir(log_dir)
    paths = [log_dir / "results.json", log_dir / "standings.txt", log_dir / "standings.csv"]
    write_private(paths[0], json.dumps(doc, indent=2) + "\n")
    write_private(paths[1], render_standings(doc))
    write_private(paths[2], standings_csv(doc))
    return paths
