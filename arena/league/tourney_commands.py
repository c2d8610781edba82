"""What `arena tournament run|standings` do, behind the argument parsing."""

from __future__ import annotations

import json
import logging
import sys
from dataclasses import replace
from typing import TextIO

from arena.engine.errors import ConfigError
from arena.league.tourney_config import load_tournament
from arena.league.tourney_results import (
    render_standings,
    results_document,
    standings_csv,
    write_results,
)
from arena.league.tourney_runner import TournamentRun
from arena.match.tourney.event import EventState
from arena.match.tourney.simulate import simulate_tournament


def run_tournament(path: str, *, listen: str | None = None, simulate: str | None = None,
                   out: TextIO | None = None) -> int:
    out = out or sys.stdout
    config = load_tournament(path)
    if listen is not None:
        config = replace(config, listen=listen)
    if simulate is not None:
        played: list[EventState] = []
        result = simulate_tournament(config.format, rules=config.rules, policy=simulate,
                                     on_events=played.extend)
        doc = results_document(name=config.name, kind=config.format.kind, result=result,
                               events=played)
        written = write_results(config.log_dir, doc)
        out.write(render_standings(doc))
        out.write(f"results: {written[0]} (simulated in-process with the {simulate!r} policy)\n")
        return 0
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    run = TournamentRun(config, out=out)
    host = config.listen.rsplit(":", 1)[0]

    def ready(port: int) -> None:
        out.write(f"tournament {config.name!r} ({config.format.kind}, "
                  f"{len(config.bots)} bots): listening on {host}:{port}\n")
        out.flush()

    complete = run.run(on_ready=ready)
    if not complete:
        out.write("tournament interrupted: run the same command again to resume\n")
        return 3
    return show_standings(path, fmt="table", out=out)


def show_standings(path: str, *, fmt: str, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    config = load_tournament(path)
    results = config.log_dir / "results.json"
    if not results.exists():
        raise ConfigError(f"no results yet in {config.log_dir} (run: arena tournament run {path})")
    doc = json.loads(results.read_text(encoding="utf-8"))
    if fmt == "json":
        out.write(json.dumps(doc, indent=2) + "\n")
    elif fmt == "csv":
        out.write(standings_csv(doc))
    else:
        out.write(render_standings(doc))
        out.write(f"hand logs: {config.log_dir}/*.phhs; events: {config.log_dir}/tournament.jsonl\n")
    return 0
