"""Tournament results: standings, placings, points and eliminations by hand, as files and text.

One JSON document (``results.json`` in the log directory) is the source for the standings
table, the CSV and the ``arena tournament standings`` command.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.match.tourney.event import EventState
from arena.match.tourney.formats import FormatResult


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
        "moves": [{"round": r, "player": m.player, "from_table": m.from_table,
                   "to_table": m.to_table, "reason": m.reason} for r, m in state.moves],
        "voided_hands": list(state.voided),
    }


def results_document(*, name: str, kind: str, result: FormatResult,
                     events: Sequence[EventState]) -> dict[str, Any]:
    return {"tournament": name, "format": kind, **result.to_json(),
            "events": [event_summary(s) for s in events]}


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
    return "\n".join(lines) + "\n"


def standings_csv(doc: dict[str, Any]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["place", "bot", "points", "placings"])
    for s in doc.get("standings", []):
        writer.writerow([s["place"], s["player"], s["points"], " ".join(map(str, s["placings"]))])
    return buffer.getvalue()


def write_results(log_dir: Path, doc: dict[str, Any]) -> list[Path]:
    log_dir.mkdir(parents=True, exist_ok=True)
    paths = [log_dir / "results.json", log_dir / "standings.txt", log_dir / "standings.csv"]
    write_private(paths[0], json.dumps(doc, indent=2) + "\n")
    write_private(paths[1], render_standings(doc))
    write_private(paths[2], standings_csv(doc))
    return paths
