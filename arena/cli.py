"""The `arena` command line: argument parsing and wiring only.

Every command imports what it needs when it runs, so `arena bot` (a bot's process, started once
per bot by leagues and their authors) loads the SDK and nothing of the dealer, the engine or the
leagues: the SDK's own parser reads its arguments (`tests/test_cli.py`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from arena import cliargs

if TYPE_CHECKING:
    from arena.engine.rules import Rules
    from arena.league.commands import PeerOptions
    from arena.league.config import LeagueConfig


def _rules(assignments: Sequence[str] | None) -> Rules:
    from arena.engine.rules import Rules

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


def cmd_events(args: argparse.Namespace) -> int:
    from arena.server.eventrecord import print_events

    return print_events(args.file, seat=args.seat, out=sys.stdout, err=sys.stderr)


def cmd_serve(args: argparse.Namespace) -> int:
    from arena.server.commands import run_serve

    return run_serve(args.config, listen=args.listen, log_dir=args.log_dir)


def cmd_bot(args: argparse.Namespace) -> int:
    """``arena bot ARGS``: the SDK's own command line (``arena-bot ARGS``), run in this process."""
    from arena.host.sdk import sdk_module

    code: int = sdk_module("cli").main(args.words)
    return code


def cmd_practice(args: argparse.Namespace) -> int:
    from arena.practice import run_practice

    return run_practice(args.bot, hands=args.hands, games=_csv(args.games),
                        opponents=_csv(args.opponents) or [], seed=args.seed, out_dir=args.out,
                        rule_overrides=args.set or [], connect_seconds=args.connect_seconds,
                        show_worst=args.worst)


def _csv(text: str | None) -> list[str] | None:
    return [part.strip() for part in text.split(",") if part.strip()] if text else None


def _store(args: argparse.Namespace) -> str | None:
    """--store, else $ARENA_STORE (kept out of --help: the URL may hold a password)."""
    return str(args.store) if args.store else os.environ.get("ARENA_STORE") or None


def cmd_league(args: argparse.Namespace) -> int:
    from arena.league.commands import league_status, run_league
    from arena.tourney.commands import run_tournament, show_standings
    from arena.tourney.config import is_tournament_league

    if is_tournament_league(args.file):  # format = "seed-003" or "freezeout": a tournament
        if args.action == "run":
            return run_tournament(args.file, listen=args.listen, store=_store(args),
                                  league_file=True)
        return show_standings(args.file, fmt="table", store=_store(args), league_file=True)
    if args.action == "run":
        web = None
        if args.web_port is not None:
            from arena.web.server import WebServer

            def web(config: LeagueConfig) -> WebServer:
                return WebServer(config, host=args.web_host, port=args.web_port, live=True)
        return run_league(args.file, listen=args.listen, store=_store(args),
                          local_worker=not args.no_worker, web=web, peer=_peer(args))
    return league_status(args.file, store=_store(args))


def cmd_worker(args: argparse.Namespace) -> int:
    from arena.league.commands import run_worker

    return run_worker(_store(args) or "", name=args.name, listen=args.listen, advertise=args.advertise,
                      tables=args.tables, tls=(args.tls_cert, args.tls_key), log_dir=args.log_dir,
                      metrics_port=args.metrics_port, metrics_addr=args.metrics_addr,
                      lease_seconds=args.lease_seconds, heartbeat_seconds=args.heartbeat_seconds,
                      exit_when_done=args.exit_when_done, peer=_peer(args))


def _peer(args: argparse.Namespace) -> PeerOptions:
    from arena.league.commands import PeerOptions

    return PeerOptions(args.peer_cert, args.peer_key, args.peer_ca, args.peer_listen, args.peer_name)


def _peer_arguments(parser: argparse.ArgumentParser) -> None:
    """Mutual TLS between workers (the relays of bots' seats): all three files, or none."""
    parser.add_argument("--peer-cert", default=None,
                        help="PEM certificate of this worker, signed by --peer-ca (subjectAltName "
                             "DNS:arena-worker): relays between workers use mutual TLS")
    parser.add_argument("--peer-key", default=None, help="PEM private key of --peer-cert (owner-only)")
    parser.add_argument("--peer-ca", default=None, help="PEM certificate of the CA of every worker")
    parser.add_argument("--peer-listen", default="0.0.0.0:50052", type=cliargs.listen,
                        help="HOST:PORT other workers' relays connect to (with --peer-cert)")
    parser.add_argument("--peer-name", default="arena-worker",
                        help="the name every worker certificate carries (checked by relays)")


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from arena.league.commands import show_leaderboard
    from arena.tourney.commands import show_standings
    from arena.tourney.config import is_tournament_league

    if is_tournament_league(args.file):  # the tournament's standings, from the store
        return show_standings(args.file, fmt=args.format, store=_store(args), league_file=True)
    return show_leaderboard(args.file, fmt=args.format, table=args.table,
                            store=_store(args))


class _Help(argparse.RawDescriptionHelpFormatter):
    """Every option's help ends with its default (none for flags, required and unset options)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and not action.required \
                and action.option_strings:
            text += f" (default: {action.default})"
        return text


DESCRIPTION = """arena: poker bots play fixed-limit H.O.R.S.E. against each other over gRPC.
New here? docs/first-bot.md has you playing your own bot in five minutes."""
EXIT_CODES = """exit codes: 0 done; 1 a check failed (replay mismatch, bot never connected);
2 bad input (file, option, token); 3 interrupted: run the same command again to resume"""


def cmd_web(args: argparse.Namespace) -> int:
    from arena.web.server import run_web

    return run_web(args.league if args.tournament is None else args.tournament, host=args.host,
                   port=args.port, tournament=args.tournament is not None)


def cmd_gateway(args: argparse.Namespace) -> int:
    from arena.gateway.dealerlink import read_ca
    from arena.gateway.limits import GatewayLimits
    from arena.gateway.server import run_gateway

    return run_gateway(args.dealer, args.listen,
                       limits=GatewayLimits(max_message_bytes=args.max_message_bytes,
                                            hard_frame_bytes=4 * args.max_message_bytes),
                       root_certificates=read_ca(args.tls_ca))


def cmd_mcp(args: argparse.Namespace) -> int:
    from arena.gateway.dealerlink import read_ca
    from arena.gateway.mcpserver import run_mcp

    token = args.token or os.environ.get("ARENA_TOKEN")
    if not token:
        print("arena: error: give --token or set ARENA_TOKEN", file=sys.stderr)
        return 2
    return run_mcp(args.server, token, name=args.name, root_certificates=read_ca(args.tls_ca))


def cmd_match(args: argparse.Namespace) -> int:
    from pathlib import Path

    from arena.abtest import AbTest, run_ab_test
    from arena.engine.errors import ConfigError
    from arena.league.sprt import SprtBounds

    try:
        bounds = SprtBounds.parse(args.sprt, alpha=args.alpha, beta=args.beta)
    except ValueError as exc:
        raise ConfigError(f"--sprt/--alpha/--beta: {exc}") from None
    if args.max_hands <= 0 or args.hands_per_match <= 0:
        raise ConfigError("--max-hands and --hands-per-match must be positive")
    spec = AbTest(args.bot_a, args.bot_b, bounds, max_hands=args.max_hands,
                  hands_per_match=args.hands_per_match, seed=args.seed,
                  directory=Path(args.dir) if args.dir else None, use_luck=not args.no_luck)
    return run_ab_test(spec)


def cmd_tournament(args: argparse.Namespace) -> int:
    from arena.tourney.commands import run_tournament, show_standings

    if args.action == "run":
        return run_tournament(args.file, listen=args.listen, simulate=args.simulate)
    return show_standings(args.file, fmt=args.format)


def build_parser() -> argparse.ArgumentParser:
    from arena.engine.games import EngineGame, GameCode
    from arena.league.leaderboard import CSV_TABLES

    parser = argparse.ArgumentParser(prog="arena", description=DESCRIPTION, epilog=EXIT_CODES,
                                     formatter_class=_Help)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=text, description=text, formatter_class=_Help,
                              epilog=EXIT_CODES)

    rules_help = "override a [rules] key (repeatable), e.g. decision_seconds=5"
    sim = command("simulate", "play hands in-process with built-in policies")
    sim.add_argument("--game", default="horse",
                     choices=("horse", *(g.value for g in GameCode), *(g.value for g in EngineGame)),
                     help="the game, or horse for the rotation")
    sim.add_argument("--players", type=int, default=6,
                     help="seats at the table (2 to 8; hold'em 11, Omaha 10)")
    sim.add_argument("--hands", type=cliargs.count, default=1000, help="hands to play")
    sim.add_argument("--seed", type=int, default=1, help="match seed: the same seed deals the same cards")
    sim.add_argument("--out", default=None, help="directory for hands.phhs (none: not written)")
    sim.add_argument("--policy", default="random", choices=("random", "call"),
                     help="what every seat plays")
    sim.add_argument("--set", action="append", metavar="KEY=VALUE", help=rules_help)
    sim.set_defaults(func=cmd_simulate)

    rep = command("replay", "replay .phh/.phhs files and check their final stacks")
    rep.add_argument("files", nargs="+", help="hand histories (.phh, .phhs; match logs are verified "
                                              "against their revealed seed)")
    rep.add_argument("--set", action="append", metavar="KEY=VALUE",
                     help=rules_help + "; a hand that records its rules (_rules) plays by them")
    rep.add_argument("--show", action="store_true", help="print each hand readably")
    rep.add_argument("--hand", default=None,
                     help="replay only this hand: its number in the file (1 = first) or its id")
    rep.set_defaults(func=cmd_replay)

    events = command("events", "print a match's event log (<match>.events.pb) as JSON lines")
    events.add_argument("file", help="the event log, e.g. logs/r1-t1.events.pb")
    events.add_argument("--seat", type=cliargs.seat, default=None,
                        help="only the events as this seat received them (and any gaps)")
    events.set_defaults(func=cmd_events)

    srv = command("serve", "run the dealer: the matches of a TOML config over gRPC")
    srv.add_argument("--config", required=True, help="match config, e.g. deploy/match.toml")
    srv.add_argument("--listen", default=None, type=cliargs.listen, help="HOST:PORT, overrides the config's")
    srv.add_argument("--log-dir", default=None, help="log directory, overrides the config's")
    srv.set_defaults(func=cmd_serve)

    practice = command("practice", "a practice match of your bot against built-in bots on a local "
                                   "dealer, then your biggest losing hands")
    practice.add_argument("--bot", required=True, metavar="BOT",
                          help="your bot: file.py:function or module:function (run through "
                               "`arena bot`), a bot package directory (arena-bot.toml: built and "
                               "run in its sandbox), or a command that gets --server HOST:PORT "
                               "--token TOKEN appended (or substituted for {server} and {token})")
    practice.add_argument("--hands", type=int, default=50, help="hands to play")
    practice.add_argument("--games", default=None,
                          help="comma-separated games, e.g. FT,FR (none: the whole H.O.R.S.E. rotation)")
    practice.add_argument("--opponents", default="rules,call",
                          help="built-in bots at the table (1 to 7 of rules, call, random)")
    practice.add_argument("--seed", type=int, default=1,
                          help="match seed: the same seed deals the same cards")
    practice.add_argument("--out", default=None,
                          help="directory for the hand log (none: a new temporary directory)")
    practice.add_argument("--connect-seconds", type=float, default=60.0,
                          help="how long to wait for your bot to connect")
    practice.add_argument("--worst", type=int, default=5, help="losing hands to list")
    practice.add_argument("--set", action="append", metavar="KEY=VALUE", help=rules_help)
    practice.set_defaults(func=cmd_practice)

    # Listed for `arena --help`; `arena bot ...` itself is the SDK's command line (main).
    sub.add_parser("bot", add_help=False, help="run a Python bot (an example or your own "
                   "module:function) against a dealer")

    league = command("league", "run a league of connected bots, or show its status")
    league.add_argument("action", choices=("run", "status"), help="run (resumable) or status")
    league.add_argument("file", help="the league file (TOML), see docs/league-file.md")
    league.add_argument("--listen", default=None, type=cliargs.listen, help="HOST:PORT, overrides the file's")
    league.add_argument("--store", default=None,
                        help="results store (SQLite file or postgresql:// URL), overrides the file's "
                             "(none: $ARENA_STORE if set)")
    league.add_argument("--no-worker", action="store_true",
                        help="PostgreSQL store: only enqueue and show progress; `arena worker`s play")

    worker = command("worker", "deal jobs of a PostgreSQL work queue (leagues on many machines)")
    worker.add_argument("--store", default=None,
                        help="postgresql://USER:PASSWORD@HOST:PORT/DB (none: $ARENA_STORE)")
    worker.add_argument("--listen", default="0.0.0.0:50051", type=cliargs.listen,
                        help="HOST:PORT the bots connect to")
    worker.add_argument("--advertise", default=None, type=cliargs.advertise,
                        help="HOST:PORT other workers use to reach this one: its peer port with "
                             "--peer-cert, else --listen (none: the bound host, or for 0.0.0.0 the "
                             "address the database sees this worker connect from)")
    worker.add_argument("--tables", type=int, default=4, help="tables dealt at once")
    worker.add_argument("--tls-cert", default=None, help="PEM certificate: bots connect with TLS")
    worker.add_argument("--tls-key", default=None, help="PEM private key of --tls-cert")
    worker.add_argument("--name", default=None, help="worker identity (none: host name and process id)")
    worker.add_argument("--log-dir", default="worker-logs", help="hand logs go to LOG_DIR/<league>/")
    worker.add_argument("--metrics-port", type=cliargs.port, default=None, help="serve /metrics on this port")
    worker.add_argument("--metrics-addr", default="127.0.0.1", help="address for /metrics")
    worker.add_argument("--lease-seconds", type=float, default=15.0,
                        help="a job whose worker was silent this long is taken by another worker")
    worker.add_argument("--heartbeat-seconds", type=float, default=3.0, help="heartbeat interval")
    worker.add_argument("--exit-when-done", action="store_true", help="leave when no job is left")
    _peer_arguments(worker)
    worker.set_defaults(func=cmd_worker)
    league.add_argument("--web-port", type=cliargs.port, default=None,
                        help="serve the web app (live tables, leaderboard, replayer) on this port "
                             "while the league runs; 0 picks a free port; off by default")
    league.add_argument("--web-host", default="127.0.0.1", help="address for --web-port")
    _peer_arguments(league)
    league.set_defaults(func=cmd_league)

    web = command("web", "serve a league's leaderboard, matches and hand replayer, or a tournament's "
                  "standings, tables and hands (read-only)")
    which = web.add_mutually_exclusive_group(required=True)
    which.add_argument("--league", help="the league file (TOML; a tournament format is served "
                                        "as a tournament)")
    which.add_argument("--tournament", help="the tournament file (TOML)")
    web.add_argument("--host", default="127.0.0.1", help="address to listen on")
    web.add_argument("--port", type=cliargs.port, default=8080, help="port; 0 picks a free port")
    web.set_defaults(func=cmd_web)

    gate = command("gateway", "let agents play over a WebSocket of JSON (proto3 JSON of the gRPC "
                   "messages), relayed to a dealer; /agent.txt describes it")
    gate.add_argument("--dealer", required=True, type=cliargs.server_address,
                      help="HOST:PORT of the dealer (or league) the agents' seats are at")
    gate.add_argument("--listen", default="127.0.0.1:8765", type=cliargs.listen,
                      help="HOST:PORT for the WebSocket; port 0 picks a free one")
    gate.add_argument("--max-message-bytes", type=cliargs.count, default=64 * 1024,
                      help="largest frame an agent may send (the dealer's own default)")
    gate.add_argument("--tls-ca", default=None,
                      help="PEM root certificate of a TLS dealer (none: plain gRPC)")
    gate.set_defaults(func=cmd_gateway)

    mcp = command("mcp", "an MCP server (stdio) through which an MCP-capable agent plays one seat")
    mcp.add_argument("--server", required=True, type=cliargs.server_address, help="HOST:PORT of the dealer")
    mcp.add_argument("--token", default=None,
                     help="the seat's token (none: the ARENA_TOKEN environment variable)")
    mcp.add_argument("--name", default="mcp-agent", help="display name sent in hello")
    mcp.add_argument("--tls-ca", default=None,
                     help="PEM root certificate of a TLS dealer (none: plain gRPC)")
    mcp.set_defaults(func=cmd_mcp)

    board = command("leaderboard", "the leaderboard of a league's results store")
    board.add_argument("file", help="the league file (TOML)")
    board.add_argument("--format", default="table", choices=("table", "json", "csv"),
                       help="output format")
    board.add_argument("--table", default="results", choices=(*CSV_TABLES, "faults"),
                       help="with --format csv: which table")
    board.add_argument("--store", default=None,
                       help="results store, overrides the file's (none: $ARENA_STORE if set)")
    board.set_defaults(func=cmd_leaderboard)

    ab = command("match", "an A/B test: duplicate heads-up H.O.R.S.E. between two bots until a "
                          "sequential test (SPRT) decides; exit 0 with a decision, 1 without")
    ab.add_argument("bot_a", metavar="A", help="random, call, rules, file.py:function, or a command "
                                                "(gets --server and --token, or {server} {token})")
    ab.add_argument("bot_b", metavar="B", help="the other bot, the same way")
    ab.add_argument("--sprt", required=True, metavar="LOW,HIGH",
                    help="hypotheses in mbb/hand of A against B: H0 mean <= LOW, H1 mean >= HIGH")
    ab.add_argument("--alpha", type=float, default=0.05, help="chance of accepting H1 when H0 holds")
    ab.add_argument("--beta", type=float, default=0.05, help="chance of accepting H0 when H1 holds")
    ab.add_argument("--max-hands", type=int, default=20_000, help="stop without a decision after this")
    ab.add_argument("--hands-per-match", type=int, default=10,
                    help="hands of each deal set (10: one H.O.R.S.E. rotation heads-up)")
    ab.add_argument("--seed", type=int, default=1, help="match seed: the same seed deals the same cards")
    ab.add_argument("--dir", default=None, help="directory for the store and logs (none: a temporary one)")
    ab.add_argument("--no-luck", action="store_true",
                    help="test duplicate results without the luck adjustment")
    ab.set_defaults(func=cmd_match)

    tour = sub.add_parser("tournament", help="run a tournament of connected bots, or its standings")
    tour.add_argument("action", choices=("run", "standings"),
                      help="run (resumable) or standings")
    tour.add_argument("file", help="the tournament file (TOML)")
    tour.add_argument("--listen", default=None, type=cliargs.listen, help="HOST:PORT, overrides the file")
    tour.add_argument("--simulate", default=None, choices=("random", "call"),
                      help="play in-process with this built-in policy instead of bots")
    tour.add_argument("--format", default="table", choices=("table", "json", "csv"),
                      help="standings output (default: %(default)s)")
    tour.set_defaults(func=cmd_tournament)
    return parser


def cmd_bot_check(args: argparse.Namespace) -> int:
    """Validate a bot package and run its build in the sandbox play uses."""
    from arena.host.botpackage import PackageError, load_package
    from arena.host.sandbox import build, probe

    try:
        package = load_package(args.dir)
    except PackageError as exc:
        print(f"arena bot check: {args.dir}: {len(exc.problems)} problem(s)", file=sys.stderr)
        for problem in exc.problems:
            print(f"  - {problem}", file=sys.stderr)
        return 1
    why = probe()
    if why:
        print(f"arena bot check: {why}", file=sys.stderr)
        return 2
    result = build(package)
    if result.output:
        print(result.output.rstrip())
    if not result.ok:
        print(f"arena bot check: {package.directory}: {result.problem}", file=sys.stderr)
        return 1
    print(f"{package.name}: arena-bot.toml valid; build "
          f"{'done' if package.build.strip() else '(none) skipped'} in the sandbox; run: {package.run}")
    return 0


def cmd_bot_logs(args: argparse.Namespace) -> int:
    """One hosted bot's logs (and no other bot's), packed for its author."""
    from pathlib import Path

    from arena.storage.botlogs import export_bot_logs

    try:
        count = export_bot_logs(Path(args.log_dir), args.bot, Path(args.out))
    except FileNotFoundError as exc:
        print(f"arena bot logs: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}: {count} log file(s) of bot {args.bot!r} (owner-only)")
    return 0


def bot_tools_parser() -> argparse.ArgumentParser:
    """`arena bot check DIR` and `arena bot logs LOG_DIR BOT`: hosted bots' packages and logs
    (BOT of `arena bot BOT` is never "check" or "logs": those are no example nor module:function)."""
    parser = argparse.ArgumentParser(prog="arena bot")
    sub = parser.add_subparsers(dest="tool", required=True)
    check = sub.add_parser("check", help="validate a bot package (arena-bot.toml) and run its "
                                         "build in the sandbox")
    check.add_argument("dir", metavar="DIR", help="the package directory")
    check.set_defaults(func=cmd_bot_check)
    logs = sub.add_parser("logs", help="pack one hosted bot's stdout/stderr logs for its author")
    logs.add_argument("log_dir", metavar="LOG_DIR", help="the league's log_dir")
    logs.add_argument("bot", metavar="BOT", help="the bot's name in the league")
    logs.add_argument("--out", "-o", required=True, help="the .tar.gz to write (mode 0600)")
    logs.set_defaults(func=cmd_bot_logs)
    return parser


EXIT_INTERRUPTED = 3  # as a league, tournament or worker stopped by a signal once running


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["bot"] and words[1:2] in (["check"], ["logs"]):
        args = bot_tools_parser().parse_args(words[1:])
    elif words[:1] == ["bot"]:  # the SDK's parser alone: nothing of the dealer is imported
        args = argparse.Namespace(func=cmd_bot, words=words[1:])
    else:
        args = build_parser().parse_args(words)
    players = getattr(args, "players", None)
    if players is not None:
        # docs/house-rules.md §20: the table size depends on the games (hold'em 11, Omaha 10,
        # stud 8).
        from arena.engine.games import HORSE, max_seats

        game = getattr(args, "game", "horse")
        most = max_seats(HORSE if game == "horse" else (game,))
        if not 2 <= players <= most:
            print(f"arena: error: --players must be 2 to {most} for {game}", file=sys.stderr)
            return 2
    try:
        result: int = args.func(args)
        sys.stdout.flush()
        return result
    except BrokenPipeError:
        # The reader went away (`arena replay --show | head`): stop quietly, as `cat` does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        # Ctrl-C before a command handles it itself (a league or server starting up): what
        # was done is kept, as after an interruption once running (run it again to resume).
        print(f"arena {words[0] if words else ''}: interrupted (Ctrl-C)", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        if not _said(exc):
            raise
        return 2


def _said(exc: Exception) -> bool:
    """Prints a failure that is the user's input or machine in one line: bad input (ArenaError),
    or e.g. an output directory that cannot be made (OSError, sqlite3.Error). False for others
    (a bug: its traceback). Imported here, where a command has failed."""
    import sqlite3

    from arena.engine.errors import ArenaError

    if not isinstance(exc, (ArenaError, OSError, sqlite3.Error)):
        return False
    print(f"arena: error: {exc}", file=sys.stderr)
    return True


if __name__ == "__main__":
    sys.exit(main())
