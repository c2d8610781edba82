"""Hosted bots in leagues with the real bubblewrap (issue 36): packages in four languages play
duplicate H.O.R.S.E. to the end with a fresh instance per copy; hostile packages are contained
and the league finishes; a spy that tries every way to carry cards between copies learns
nothing when hosted, and links every copy when it runs as a remote bot (labeled)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.host.sandbox import PYTHON_SDK, probe
from arena.league.config import league_from_mapping
from arena.league.hosting import TRUST_LABEL
from arena.league.runner import LeagueRun
from arena.storage.store import open_store
from tests.pgserver import PostgresServer
from tests.server.procs import env

pytestmark = [pytest.mark.timeout(300)]
PACKAGES = Path(__file__).resolve().parents[2] / "bots" / "packages"
NODE_SDK = Path(__file__).resolve().parents[2] / "bots" / "node"

if probe():
    if os.environ.get("CI") == "true":
        pytest.fail(f"bubblewrap must run in CI: {probe()}", pytrace=False)
    pytest.skip(f"no sandbox here: {probe()}", allow_module_level=True)

SPY = '''
"""Remembers its cards per deal and hand everywhere it can, and looks for another copy's."""
import glob, json, os, socket, threading
from pathlib import Path
from arena_bot import SeatView

MEMORY = {}
PLACES = ["/arena/work", "/tmp", "/dev/shm", "/arena/bot", os.path.expanduser("~"), "/var/tmp"]
KEPT = []
SERVED = set()


def _port(deal):
    return 20000 + sum(map(ord, deal)) % 20000


def _serve(port):
    """The network: what it remembers, to whoever connects to 127.0.0.1:port."""
    server = socket.create_server(("127.0.0.1", port))

    def loop():
        while True:
            conn, _ = server.accept()
            conn.sendall(json.dumps([[*key, cards] for key, cards in MEMORY.items()]).encode())
            conn.close()

    threading.Thread(target=loop, daemon=True).start()


def _ask(deal):
    try:
        with socket.create_connection(("127.0.0.1", _port(deal)), timeout=0.5) as conn:
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
        return [tuple(row) for row in json.loads(data)]
    except (OSError, ValueError):
        return []


def _remember(deal, hand, match, cards):
    key = f"spy-{deal}-{hand}-{match}"
    MEMORY[(deal, hand, match)] = cards
    os.environ[key] = cards
    for place in PLACES:
        try:
            Path(place, key).write_text(cards)
        except OSError:
            pass
    if _port(deal) not in SERVED:
        SERVED.add(_port(deal))
        try:
            _serve(_port(deal))
        except OSError:
            pass  # another copy listens there already: it is asked below
    try:  # an abstract Unix socket: its name is visible to every process of a network namespace
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(f"\\0{key}-{cards}")
        sock.listen(1)
        KEPT.append(sock)
    except OSError:
        pass


def _recall(deal, hand, match):
    found = {cards for (d, h, m), cards in MEMORY.items() if (d, h) == (deal, hand) and m != match}
    found |= {cards for d, h, m, cards in _ask(deal) if (d, h) == (deal, hand) and m != match}
    prefix = f"spy-{deal}-{hand}-"
    for place in PLACES:
        for path in glob.glob(os.path.join(place, prefix + "*")):
            if not path.endswith(match):
                found.add(Path(path).read_text())
    try:
        for line in Path("/proc/net/unix").read_text().splitlines():
            name = line.split()[-1]
            if name.startswith("@" + prefix):
                other, _, cards = name[len(prefix) + 1:].rpartition("-")
                if other != match:
                    found.add(cards)
    except OSError:
        pass
    return found


def decide(view: SeatView):
    request = view.request
    deal = request.match_id.rsplit("-c", 1)[0]
    cards = "".join(view.hole_cards)
    known = _recall(deal, request.hand_number, request.match_id)
    if known:
        print(f"PREDICT {request.match_id} {request.hand_number} {sorted(known)}", flush=True)
    _remember(deal, request.hand_number, request.match_id, cards)
    return view.check_or_call()
'''


def _copy_packages(tmp_path: Path, *names: str) -> None:
    for name in names:
        shutil.copytree(PACKAGES / name, tmp_path / name)


def _node_modules() -> None:
    if not (NODE_SDK / "node_modules" / "@grpc" / "grpc-js").is_dir():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is needed for the Node.js package's gRPC modules")
        subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=NODE_SDK, check=True,
                       capture_output=True)


def _league(tmp_path: Path, bots: list[dict[str, Any]], **extra: Any) -> LeagueRun:
    data = {"name": "hosted", "hands_per_match": 10, "listen": "127.0.0.1:0", "tables_at_once": 4,
            "start_timeout_seconds": 30, "seed": 36, "bots": bots, **extra}
    config = league_from_mapping(data, base_dir=tmp_path)
    return LeagueRun(config, out=io.StringIO())


def _logs(tmp_path: Path, bot: str, stream: str) -> list[Path]:
    return sorted((tmp_path / "league-logs" / "bots" / bot).glob(f"*.{stream}.log"))


def test_four_languages_play_duplicate_horse_with_a_fresh_instance_per_copy(tmp_path: Path) -> None:
    _node_modules()
    _copy_packages(tmp_path, "python-rules", "python-station", "node-pairs", "c-caller")
    run = _league(tmp_path, [{"name": "rules", "package": "python-rules"},
                             {"name": "station", "package": "python-station"},
                             {"name": "node", "package": "node-pairs"},
                             {"name": "c", "package": "c-caller"}],
                  # No healthy instance may time out or miss its start, however loaded the
                  # machine (8 sandboxes at once, each a share of a core): generous clocks.
                  start_timeout_seconds=120, rules={"decision_seconds": 30.0})
    try:
        assert run.config.duplicate and run.config.rules.games == ("FT", "FO/8", "FR", "F7S", "F7S/8")
        assert run.run() is True
        standing = run.standing()
        assert standing.done_hands == standing.total_hands == 12 * 10
        faults = run.faults()
        assert sum(f.timeouts + f.absent_decisions for f in faults) == 0, faults
    finally:
        run.close()
    out = run.out.getvalue()  # type: ignore[attr-defined]
    assert "built c" in out and TRUST_LABEL not in out  # every bot hosted: nothing to trust
    for bot in ("rules", "station", "node", "c"):
        logs = _logs(tmp_path, bot, "stderr")
        assert len(logs) == 6, logs  # 3 opponents x 2 copies: one instance each
        for log in logs:
            text = log.read_text()  # ended with its match (by itself, or killed 2 s after)
            assert "[arena] the bot exited with code 0 when its match ended" in text or \
                "[arena] stopped by the arena: still running" in text, text
            assert "before its match ended" not in text
            assert (log.stat().st_mode & 0o777) == 0o600
    assert (tmp_path / "league-logs" / "bots").stat().st_mode & 0o777 == 0o700


def test_hostile_packages_are_contained_and_the_league_finishes(tmp_path: Path) -> None:
    _copy_packages(tmp_path, "python-rules")
    hostile = {
        "forker": "python3 -c 'import os\nwhile True:\n    try: os.fork()\n    except OSError: pass'",
        "hog": "python3 -c 'x = []\nwhile True: x.append(bytearray(1 << 20))'",
        "chatter": "python3 -c 'import sys\nwhile True: sys.stdout.write(\"x\" * 65536)'",
        "sleeper": "trap \"\" TERM INT HUP; while true; do sleep 1; done",
        "crasher": "echo boom >&2; exit 3",
        "snoop": f"cat {tmp_path / 'hosted.sqlite'} {tmp_path / 'league.toml'} "
                 f"ls {tmp_path}; sleep 1000",
    }
    for name, command in hostile.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "arena-bot.toml").write_text(
            _toml({"name": name, "run": command, "memory_mib": 64, "processes": 16}))
    bots = [{"name": "honest", "package": "python-rules"}] + [
        {"name": name, "package": name} for name in hostile]
    run = _league(tmp_path, bots, format="gauntlet", hero="honest", duplicate=True,
                  start_timeout_seconds=3, bot_log_bytes=4096, store="hosted.sqlite")
    try:
        assert run.run() is True
        standing = run.standing()
        assert standing.done_hands == standing.total_hands
    finally:
        run.close()
    out = run.out.getvalue()  # type: ignore[attr-defined]
    assert "hosted bot crasher (match " in out and "exited with code 3 before its match" in out
    crashed = _logs(tmp_path, "crasher", "stderr")
    assert crashed and "boom" in crashed[0].read_text()
    chatter = _logs(tmp_path, "chatter", "stdout")
    assert chatter and all(p.stat().st_size < 4096 + 200 for p in chatter)
    assert "more bytes dropped" in chatter[0].read_text()
    snooped = "".join(p.read_text(errors="replace") for p in _logs(tmp_path, "snoop", "stdout")
                      + _logs(tmp_path, "snoop", "stderr"))
    assert "No such file" in snooped and "SQLite format" not in snooped and "[[bots]]" not in snooped


def _toml(values: dict[str, Any]) -> str:
    return "".join(f"{key} = {json.dumps(value)}\n" for key, value in values.items())


def _predictions(texts: list[str]) -> int:
    """Hand numbers at which the spy held another copy's cards (from any of its decisions)."""
    return len({line.split()[2] for text in texts for line in text.splitlines()
                if line.startswith("PREDICT")})


def test_a_hosted_spy_predicts_no_card(tmp_path: Path) -> None:
    (tmp_path / "spy").mkdir()
    (tmp_path / "spy" / "spy.py").write_text(SPY)
    (tmp_path / "spy" / "arena-bot.toml").write_text(
        'name = "spy"\nrun = "python3 -m arena_bot spy.py:decide"\n')
    _copy_packages(tmp_path, "python-station")
    run = _league(tmp_path, [{"name": "spy", "package": "spy"},
                             {"name": "station", "package": "python-station"}],
                  hands_per_match=20, tables_at_once=2)
    try:
        assert run.run() is True
    finally:
        run.close()
    logs = [p.read_text() for p in _logs(tmp_path, "spy", "stdout")]
    assert len(logs) == 2
    assert _predictions(logs) == 0


def test_the_same_spy_as_a_remote_bot_links_copies_and_is_labeled(tmp_path: Path) -> None:
    (tmp_path / "spy.py").write_text(SPY)
    _copy_packages(tmp_path, "python-station")
    token = "spy-token-0123456789"
    run = _league(tmp_path, [{"name": "spy", "token": token},
                             {"name": "station", "package": "python-station"}],
                  hands_per_match=20, tables_at_once=2, absent="check_fold")
    spy: list[subprocess.Popen[str]] = []

    def start(port: int) -> None:
        spy.append(subprocess.Popen(
            [sys.executable, "-m", "arena_bot", "spy.py:decide", "--server", f"127.0.0.1:{port}"],
            cwd=tmp_path, env={**os.environ, "ARENA_TOKEN": token, "PYTHONPATH": str(PYTHON_SDK)},
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))

    try:
        assert run.run(on_ready=start) is True
        run.write_leaderboard_files(run.leaderboard())
    finally:
        run.close()
    logs = tmp_path / "league-logs"
    board = json.loads((logs / "leaderboard.json").read_text())
    assert board["duplicate_trusts_bots"] == ["spy"] and TRUST_LABEL in board["trust_note"]
    rows = list(csv.DictReader(io.StringIO((logs / "leaderboard.csv").read_text())))
    assert {(r["bot"], r["dup_trusts_bot"]) for r in rows} == {("spy", "true"), ("station", "false")}
    assert TRUST_LABEL in (logs / "leaderboard.txt").read_text()
    out, _ = spy[0].communicate(timeout=60)
    assert _predictions([out]) == 20  # every hand of the second copy: the first copy's cards
    assert TRUST_LABEL in run.out.getvalue()  # type: ignore[attr-defined]


def test_arena_match_plays_two_packages_with_an_instance_per_copy(tmp_path: Path) -> None:
    from arena.abtest import AbTest, run_ab_test
    from arena.league.sprt import SprtBounds

    _copy_packages(tmp_path, "python-rules", "python-station")
    out = io.StringIO()
    code = run_ab_test(AbTest(str(tmp_path / "python-rules"), str(tmp_path / "python-station"),
                              SprtBounds(0.0, 1e6, 0.05, 0.05), max_hands=40, hands_per_match=10,
                              seed=5, directory=tmp_path / "ab", use_luck=False), out=out)
    assert code == 1 and "no decision after 40 hands" in out.getvalue(), out.getvalue()
    logs = tmp_path / "ab" / "logs" / "bots"
    assert sorted(p.name for p in logs.iterdir()) == ["a-python-rules", "b-python-station"]
    for bot in logs.iterdir():  # 2 rounds x 2 copies: four instances each
        assert len(list(bot.glob("*.stderr.log"))) == 4


def test_a_postgresql_worker_starts_the_instances_of_the_jobs_it_deals(
        tmp_path: Path, postgres: PostgresServer) -> None:
    """Issue 36 "Many machines": the worker that claims a job builds the league's packages (once)
    and starts a sandboxed instance per table it deals; the coordinator only queues jobs."""
    _copy_packages(tmp_path, "python-rules", "python-station")
    url = postgres.new_database()
    league = tmp_path / "league.toml"
    league.write_text(f'name = "hosted-pg"\nhands_per_match = 6\nstore = "{url}"\nseed = 36\n'
                      'listen = "127.0.0.1:0"\n'
                      '[[bots]]\nname = "rules"\npackage = "python-rules"\n'
                      '[[bots]]\nname = "station"\npackage = "python-station"\n')
    coordinator = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "league", "run", str(league), "--no-worker"],
        cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert coordinator.stdout is not None
    first = coordinator.stdout.readline()  # the jobs are queued: a worker that finds none leaves
    assert "jobs queued" in first, first
    worker = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "worker", "--store", url, "--name", "w1",
         "--listen", "127.0.0.1:0", "--log-dir", str(tmp_path / "w1"), "--exit-when-done"],
        cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        worker_out, _ = worker.communicate(timeout=240)
        out, _ = coordinator.communicate(timeout=60)
    finally:
        for proc in (coordinator, worker):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert coordinator.returncode == 0, out + worker_out
    assert "built rules" in worker_out and "built station" in worker_out, worker_out
    for bot in ("rules", "station"):  # one deal set, two copies: two instances each, on w1
        logs = sorted((tmp_path / "w1" / "bots" / bot).glob("*.stderr.log"))
        assert len(logs) == 2, logs
    store = open_store(url)
    try:
        league_row = store.find_league("hosted-pg")
        assert league_row is not None
        hands = [h for m in store.list_matches(league_row.league_id)
                 for h in store.completed_hands(m.match_id)]
        assert len(hands) == 12
    finally:
        store.close()


def test_a_freezeout_of_packages_runs_one_instance_per_bot(tmp_path: Path) -> None:
    """Tournaments have no duplicate copies: one sandboxed instance per bot plays it through."""
    _copy_packages(tmp_path, "python-rules", "python-station", "c-caller")
    path = tmp_path / "tournament.toml"
    path.write_text('name = "hosted-freezeout"\nformat = "freezeout"\nlisten = "127.0.0.1:0"\n'
                    'log_dir = "logs"\nseed = 9\nseats_per_table = 3\nstarting_stack = 120\n'
                    'start_timeout_seconds = 60\n[levels]\nsmall_blind = 5\nbig_blind = 10\n'
                    'hands = 3\n[rules]\ngames = ["FT"]\n'
                    '[[bots]]\nname = "rules"\npackage = "python-rules"\n'
                    '[[bots]]\nname = "station"\npackage = "python-station"\n'
                    '[[bots]]\nname = "caller"\npackage = "c-caller"\n')
    done = subprocess.run([sys.executable, "-m", "arena.cli", "tournament", "run", str(path)],
                          cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    (event,) = json.loads((tmp_path / "logs" / "results.json").read_text())["events"]
    assert len(event["eliminations"]) == 2 and all(e["was_present"] for e in event["eliminations"])
    for bot in ("rules", "station", "caller"):
        logs = list((tmp_path / "logs" / "bots" / bot).glob("*.stderr.log"))
        assert [p.name for p in logs] == ["tournament.stderr.log"]
