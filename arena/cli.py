"""The `arena` command line: argument parsing and wiring only."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from arena.engine.errors import ArenaError
from arena.engine.rules import Rules


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
        return run_league(args.file, listen=args.listen, store=args.store, local_worker=not args.no_worker)
    return league_status(args.file, store=args.store)


def cmd_worker(args: argparse.Namespace) -> int:
    from arena.league.commands import run_worker

    return run_worker(args.store, name=args.name, listen=args.listen, advertise=args.advertise,
                      tables=args.tables, tls=(args.tls_cert, args.tls_key), log_dir=args.log_dir,
                      metrics_port=args.metrics_port, metrics_addr=args.metrics_addr,
                      lease_seconds=args.lease_seconds, heartbeat_seconds=args.heartbeat_seconds,
                      exit_when_done=args.exit_when_done)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from arena.league.commands import show_leaderboard

    return show_leaderboard(args.file, fmt=args.format, store=args.store)


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
    league.add_argument("--store", default=os.environ.get("ARENA_STORE"),
                        help="results store, overrides the file (default: $ARENA_STORE if set)")
    league.add_argument("--no-worker", action="store_true",
                        help="PostgreSQL store: only enqueue and show progress; `arena worker`s play")
    league.set_defaults(func=cmd_league)

    worker = sub.add_parser("worker", help="play jobs of a PostgreSQL work queue (leagues on many machines)")
    worker.add_argument("--store", default=os.environ.get("ARENA_STORE"),
                        required="ARENA_STORE" not in os.environ,
                        help="postgresql://USER:PASSWORD@HOST:PORT/DB (default: $ARENA_STORE)")
    worker.add_argument("--listen", default="0.0.0.0:50051", help="HOST:PORT the bots connect to")
    worker.add_argument("--advertise", default=None,
                        help="HOST:PORT other workers use to reach this one (default: the bound address)")
    worker.add_argument("--tables", type=int, default=4, help="tables dealt at once")
    worker.add_argument("--tls-cert", default=None, help="PEM certificate: bots connect with TLS")
    worker.add_argument("--tls-key", default=None, help="PEM private key of --tls-cert")
    worker.add_argument("--name", default=None, help="worker identity (default: host name and process id)")
    worker.add_argument("--log-dir", default="worker-logs", help="hand logs go to LOG_DIR/<league>/")
    worker.add_argument("--metrics-port", type=int, default=None, help="serve /metrics on this port")
    worker.add_argument("--metrics-addr", default="127.0.0.1", help="address for /metrics")
    worker.add_argument("--lease-seconds", type=float, default=15.0,
                        help="a job whose worker was silent this long is taken by another worker")
    worker.add_argument("--heartbeat-seconds", type=float, default=3.0)
    worker.add_argument("--exit-when-done", action="store_true", help="leave when no job is left")
    worker.set_defaults(func=cmd_worker)

    board = sub.add_parser("leaderboard", help="the leaderboard of a league's results store")
    board.add_argument("file", help="the league file (TOML)")
    board.add_argument("--format", default="table", choices=("table", "json", "csv"))
    board.add_argument("--store", default=os.environ.get("ARENA_STORE"),
                       help="results store, overrides the file (default: $ARENA_STORE if set)")
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
