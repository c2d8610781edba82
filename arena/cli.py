"""The `arena` command line: argument parsing and wiring only."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from arena.engine.errors import ArenaError
from arena.engine.rules import Rules

if TYPE_CHECKING:
    from arena.league.config import LeagueConfig


def _rules(assignments: Sequence[str] | None) -> Rules:
    return Rules().with_overrides(assignments or [])


def cmd_simulate(args: argparse.Namespace) -> int:
    from arena.match.simulate import simulate

    summary = simulate(game=args.game, players=args.players, hands=args.hands, seed=args.seed,
                       out_dir=args.out, policy=args.policy, rules=_rules(args.set))
    games = ", ".join(f"{g} {n}" for g, n in summary.hands_by_game.items())
    print(f"played {summary.hands} hands ({games}) in {summary.seconds:.2f} s: "
          f"{summary.hands_per_second:,.0f} hands/s; {summary.showdowns} went to showdown")
    for seat, net in enumerate(summary.net_chips):
        print(f"  bot{seat}: {net:+d} chips")
    if args.out:
        print(f"hand histories: {args.out}/hands.phhs")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from arena.storage.replay import replay_paths

    return replay_paths(args.files, rules=_rules(args.set), show=args.show, hand_id=args.hand,
                        out=sys.stdout)


def cmd_serve(args: argparse.Namespace) -> int:
    from arena.server.commands import run_serve

    return run_serve(args.config, listen=args.listen, log_dir=args.log_dir)


def cmd_bot(args: argparse.Namespace) -> int:
    from arena.server.commands import run_bot

    return run_bot(args.kind, server=args.server, token=args.token, name=args.name,
                   tls_ca=args.tls_ca, seed=args.seed, reconnect_seconds=args.reconnect_seconds)


def cmd_league(args: argparse.Namespace) -> int:
    from arena.league.commands import league_status, run_league

    if args.action == "run":
        web = None
        if args.web_port is not None:
            from arena.web.server import WebServer

            def web(config: LeagueConfig) -> WebServer:
                return WebServer(config, host=args.web_host, port=args.web_port, live=True)
        return run_league(args.file, listen=args.listen, web=web)
    return league_status(args.file)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from arena.league.commands import show_leaderboard

    return show_leaderboard(args.file, fmt=args.format)


def cmd_web(args: argparse.Namespace) -> int:
    from arena.web.server import run_web

    return run_web(args.league, host=args.host, port=args.port)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arena", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="play hands in-process with built-in policies")
    sim.add_argument("--game", default="horse", choices=("horse", "FT", "FO/8", "FR", "F7S", "F7S/8"))
    sim.add_argument("--players", type=int, default=6)
    sim.add_argument("--hands", type=int, default=1000)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--out", default=None, help="directory for hands.phhs")
    sim.add_argument("--policy", default="random", choices=("random", "call"))
    sim.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a [rules] key")
    sim.set_defaults(func=cmd_simulate)

    rep = sub.add_parser("replay", help="replay .phh/.phhs files and check their final stacks")
    rep.add_argument("files", nargs="+")
    rep.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a [rules] key")
    rep.add_argument("--show", action="store_true", help="print each hand readably")
    rep.add_argument("--hand", default=None, help="replay only this hand (index or id)")
    rep.set_defaults(func=cmd_replay)

    srv = sub.add_parser("serve", help="run the dealer: the matches of a TOML config over gRPC")
    srv.add_argument("--config", required=True, help="match config, e.g. deploy/match.toml")
    srv.add_argument("--listen", default=None, help="override the config's HOST:PORT")
    srv.add_argument("--log-dir", default=None, help="override the config's log directory")
    srv.set_defaults(func=cmd_serve)

    bot = sub.add_parser("bot", help="run an example bot of the Python SDK against a server")
    bot.add_argument("kind", help="random, call or rules")
    bot.add_argument("--server", required=True, help="HOST:PORT of the dealer")
    bot.add_argument("--token", required=True)
    bot.add_argument("--name", default=None)
    bot.add_argument("--tls-ca", default=None, help="PEM root certificate for a TLS server")
    bot.add_argument("--seed", type=int, default=None)
    bot.add_argument("--reconnect-seconds", type=float, default=30.0,
                     help="how long to keep trying to reconnect after losing the server")
    bot.set_defaults(func=cmd_bot)
    league = sub.add_parser("league", help="run a league of connected bots, or show its status")
    league.add_argument("action", choices=("run", "status"))
    league.add_argument("file", help="the league file (TOML)")
    league.add_argument("--listen", default=None, help="HOST:PORT, overrides the file")
    league.add_argument("--web-port", type=int, default=None,
                        help="serve the web app (live tables, leaderboard, replayer) on this port "
                             "while the league runs; 0 picks a free port; off by default")
    league.add_argument("--web-host", default="127.0.0.1", help="address for --web-port")
    league.set_defaults(func=cmd_league)

    web = sub.add_parser("web", help="serve a league's leaderboard, matches and hand replayer")
    web.add_argument("--league", required=True, help="the league file (TOML)")
    web.add_argument("--host", default="127.0.0.1")
    web.add_argument("--port", type=int, default=8080, help="0 picks a free port")
    web.set_defaults(func=cmd_web)

    board = sub.add_parser("leaderboard", help="the leaderboard of a league's results store")
    board.add_argument("file", help="the league file (TOML)")
    board.add_argument("--format", default="table", choices=("table", "json", "csv"))
    board.set_defaults(func=cmd_leaderboard)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "players", 8) is not None and not 2 <= getattr(args, "players", 2) <= 8:
        print("arena: error: --players must be 2 to 8", file=sys.stderr)
        return 2
    try:
        result: int = args.func(args)
        return result
    except ArenaError as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
