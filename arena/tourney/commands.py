"""What `arena tournament run|standings` do, behind the argument parsing."""

from __future__ import annotations

import json
import logging
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from arena.engine.errors import ConfigError
from arena.league.config import _store_location
from arena.server.commands import on_listening
from arena.storage.store import open_store, shown_location
from arena.tourney.config import TournamentConfig, load_tournament
from arena.tourney.event import EventState
from arena.tourney.results import (
    OVERALL,
    render_standings,
    results_document,
    standings_csv,
    standings_document,
    write_results,
)
from arena.tourney.runner import TournamentRun
from arena.tourney.simulate import simulate_tournament


def _config(path: str, store: str | None, league_file: bool) -> TournamentConfig:
    config = load_tournament(path, league_file=league_file)
    return config if store is None else replace(config, store=_store_location(store, Path()))


def run_tournament(path: str, *, listen: str | None = None, simulate: str | None = None,
                   out: TextIO | None = None, store: str | None = None,
                   league_file: bool = False) -> int:
    """`arena tournament run`, and `arena league run` of a league file with a tournament format."""
    out = out or sys.stdout
    config = _config(path, store, league_file)
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
    complete = run.run(on_ready=on_listening(
        out, config.listen, f"tournament {config.name!r} ({config.format.kind}, "
        f"{len(config.bots)} bots)"))
    if not complete:
        out.write("tournament interrupted: run the same command again to resume\n")
        return 3
    return show_standings(path, fmt="table", out=out, store=store, league_file=league_file)


def show_standings(path: str, *, fmt: str, out: TextIO | None = None, store: str | None = None,
                   league_file: bool = False) -> int:
    """The standings as the results store holds them (written when the tournament ends)."""
    out = out or sys.stdout
    config = _config(path, store, league_file)
    doc = read_standings(config)
    if doc is None:
        hint = (f"; a simulated run's standings are in {config.log_dir}/results.json"
                if (config.log_dir / "results.json").exists() else "")
        raise ConfigError(f"no standings in the results store {shown_location(config.store)} yet "
                          f"(run: arena tournament run {path}){hint}")
    if fmt == "json":
        out.write(json.dumps(doc, indent=2) + "\n")
    elif fmt == "csv":
        out.write(standings_csv(doc))
    else:
        out.write(render_standings(doc))
        out.write(f"hand logs: {config.log_dir}/*.phhs; events: {config.log_dir}/tournament.jsonl"
                  f"; results store: {shown_location(config.store)}\n")
    return 0


def read_standings(config: TournamentConfig) -> dict[str, Any] | None:
    """The tournament's standings from its results store; None before it has ended."""
    if isinstance(config.store, Path) and not config.store.exists():
        return None
    store = open_store(config.store)
    try:
        league = store.find_league(config.name)
        placings = store.tournament_placings(league.league_id) if league is not None else []
    finally:
        store.close()
    if not any(p.tournament == OVERALL for p in placings):
        return None
    return standings_document(name=config.name, kind=config.format.kind, placings=placings)
