"""What `arena league run|status` and `arena leaderboard` do, behind the argument parsing."""

from __future__ import annotations

import sys
from collections.abc import Callable, Coroutine
from typing import Any, Literal, Protocol, TextIO

from arena.league.config import LeagueConfig, load_league
from arena.league.leaderboard import CsvTable, faults_csv, render_faults, render_table, to_csv, to_json
from arena.league.runner import LeagueRun
from arena.match.spectator import Spectator
from arena.server.commands import log_connections


class WebHook(Protocol):
    """A web app served on the dealer's loop while the league plays (``arena.web``)."""

    @property
    def url(self) -> str: ...

    @property
    def spectator(self) -> Spectator | None: ...

    def serve(self) -> Coroutine[Any, Any, None]: ...


def run_league(path: str, *, listen: str | None = None, out: TextIO = sys.stdout,
               web: Callable[[LeagueConfig], WebHook] | None = None) -> int:
    config = load_league(path)
    if listen is not None:
        from dataclasses import replace

        config = replace(config, listen=listen)
    log_connections()
    hook = web(config) if web is not None else None
    run = LeagueRun(config, out=out)
    try:
        if hook is not None:
            out.write(f"web: {hook.url}\n")
            out.flush()
        host = config.listen.rsplit(":", 1)[0]

        def ready(port: int) -> None:
            out.write(f"league {config.name!r}: listening on {host}:{port}; "
                      f"{len(run.schedule)} matches of {config.hands_per_match} hands, "
                      f"{config.tables_at_once} tables at once\n")
            out.flush()

        complete = run.run(on_ready=ready, spectator=hook.spectator if hook else None,
                           background=hook.serve if hook else None)
        board = run.leaderboard()
        out.write("\n" + render_table(board) + "\n" + render_faults(run.faults()))
        for written in run.write_leaderboard_files(board):
            out.write(f"wrote {written}\n")
        out.write(f"hand logs: {config.log_dir}/*.phhs (verify with: arena replay FILE)\n")
        out.write(f"results store: {config.store}\n")
        for forfeit in run.forfeited:
            out.write(f"forfeited (bots absent at the start timeout): {forfeit}\n")
        if not complete:
            out.write("league interrupted: run the same command again to resume\n")
        return 0 if complete else 3
    finally:
        run.close()


def league_status(path: str, *, out: TextIO = sys.stdout) -> int:
    config = load_league(path)
    run = LeagueRun(config, out=out)
    try:
        prepared = run.prepare()
        voids = sum(len(run.store.void_hands(match_id)) for match_id in prepared.store_ids.values())
        out.write(f"league {config.name!r}: {prepared.progress.done_hands} of "
                  f"{prepared.progress.total_hands} hands played, {voids} void (misdeals: every chip "
                  f"went back; not counted); {len(prepared.specs)} of {len(run.schedule)} matches "
                  "still to play\n")
        out.write(render_table(run.leaderboard()) + "\n" + render_faults(run.faults()))
        return 0
    finally:
        run.close()


def show_leaderboard(path: str, *, fmt: str, table: CsvTable | Literal["faults"] = "results",
                     out: TextIO = sys.stdout) -> int:
    config = load_league(path)
    run = LeagueRun(config, out=out)
    try:
        board = run.leaderboard()
        if fmt == "json":
            out.write(to_json(board, faults=run.faults()) + "\n")
        elif fmt == "csv":
            if table == "faults":
                out.write(faults_csv(run.faults()))
            else:
                out.write(to_csv(board, table=table))
        else:
            out.write(render_table(board) + "\n" + render_faults(run.faults()))
        return 0
    finally:
        run.close()
