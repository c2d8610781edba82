"""The Node.js example bot (bots/node) plays every game of a match against a Python bot."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from arena_bot import play
from arena_bot.examples import rule_based

from arena.engine.phh import iter_replays
from arena.engine.rules import Rules
from arena.engine.strategy_log import parse_strategies
from arena.host.phhfile import load_file
from arena.server.config import ServerConfig
from arena.storage.replay import replay_paths
from tests.server.harness import make_config, running, token_for

pytestmark = pytest.mark.timeout(120)

NODE_DIR = Path(__file__).resolve().parents[2] / "bots" / "node"


@pytest.fixture(scope="module")
def node_bot() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed for the Node.js bot (not installed here)")
    if not (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=NODE_DIR,
                              capture_output=True, text=True, timeout=100, check=False)
        assert done.returncode == 0, f"npm install failed:\n{done.stdout}\n{done.stderr}"
    return NODE_DIR / "bot.js"


def _node_against_python(config: ServerConfig, node_bot: Path, *node_args: str,
                         reconnect_seconds: float | None = None) -> tuple[int, str, str]:
    """One match of the Node.js bot (``node_args`` added to its command line) against the
    rule-based Python bot on a dealer of ``config``: the Node bot's exit code, stdout, stderr."""

    async def scenario() -> tuple[int, str, str]:
        async with running(config) as (server, address):
            node = await asyncio.create_subprocess_exec(
                "node", str(node_bot), "--server", address, "--token", token_for("node"),
                "--name", "node", *node_args,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            python = asyncio.ensure_future(play(rule_based, server=address,
                                                token=token_for("python"), name="python",
                                                reconnect_seconds=reconnect_seconds))
            out, err = await asyncio.wait_for(node.communicate(), 60)
            await asyncio.wait_for(python, 30)
            await server.run_until_done()
            assert node.returncode is not None
            return node.returncode, out.decode(), err.decode()

    return asyncio.run(scenario())


def test_the_node_bot_plays_a_horse_match(tmp_path: Path, node_bot: Path) -> None:
    config = make_config(tmp_path, ["node", "python"], hands=10, seed=4,
                         rules={"decision_seconds": 5.0})
    code, out, err = _node_against_python(config, node_bot, reconnect_seconds=2.0)
    assert code == 0, err
    assert "1 match(es) ended; all your matches on this dealer are over" in out, out + err
    assert "rejected" not in err
    hands = load_file(str(tmp_path / "logs" / "match.phhs"))
    assert {h.fields["variant"] for h in hands} == {"FT", "FO/8", "FR", "F7S", "F7S/8"}
    assert all(error is None for _, _, error in iter_replays(hands))
    assert all(h.fields["_timeouts"] == [0, 0] and h.fields["_absent"] == [0, 0] for h in hands)
    node_actions = sum(1 for h in hands for a in h.fields["actions"]
                       if a.startswith(f"p{h.fields['players'].index('node') + 1} "))
    assert node_actions >= 10


def test_the_node_bot_stands_pat_in_triple_draw(tmp_path: Path, node_bot: Path) -> None:
    """docs/house-rules.md §26: the Node.js bot answers every exchange itself (it stands pat,
    an exchange of no cards): no rejection, no timeout; the match replays."""
    config = make_config(tmp_path, ["node", "python"], hands=6, seed=4,
                         rules={"games": ["F2L3D"], "decision_seconds": 5.0})
    code, _out, err = _node_against_python(config, node_bot, "--policy", "call")
    assert code == 0, err
    assert "rejected" not in err
    hands = load_file(str(tmp_path / "logs" / "match.phhs"))
    assert all(error is None for _, _, error in iter_replays(hands))
    assert all(h.fields["_timeouts"] == [0, 0] for h in hands)
    node_pats = sum(1 for h in hands for a in h.fields["actions"]
                    if a == f"p{h.fields['players'].index('node') + 1} sd")
    assert node_pats >= 3


def test_the_node_bot_declares_mixed_strategies_the_dealer_draws(tmp_path: Path, node_bot: Path) -> None:
    """Issue 40: `--policy mixed` answers with strategies; the dealer draws, logs the draws, and
    the log replays with every draw re-drawn from the revealed seed."""
    config = make_config(tmp_path, ["node", "python"], hands=6, seed=9,
                         rules={"games": ["FT", "FR"], "decision_seconds": 5.0})
    code, _out, err = _node_against_python(config, node_bot, "--policy", "mixed")
    assert code == 0, err
    assert "rejected" not in err
    logs = tmp_path / "logs"
    hands = load_file(str(logs / "match.phhs"))
    records = [r for h in hands for r in parse_strategies(h)]
    assert records and all(h.fields["players"][r.seat] == "node" for h in hands
                           for r in parse_strategies(h))
    text = io.StringIO()
    assert replay_paths([str(logs / "match.phhs")], rules=Rules(), show=False, hand_id=None,
                        out=text) == 0, text.getvalue()
    decisions = json.loads((logs / "match.result.json").read_text())["decisions"]
    assert decisions["strategy_replies"] == len(records)


def _node(node_bot: Path, *args: str, extra_env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["node", str(node_bot), *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(extra_env or {})})


def test_the_node_bot_fails_in_one_line(tmp_path: Path, node_bot: Path) -> None:
    """A mistyped option, a missing contract, a wrong address, a refused token: one line each,
    exit 2, no stack trace."""
    typo = _node(node_bot, "--sever", "127.0.0.1:1", "--token", "x" * 10)
    missing = _node(node_bot, "--server", "127.0.0.1:1", "--token", "x" * 10,
                    extra_env={"ARENA_PROTO_ROOT": str(tmp_path / "nowhere")})
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    unreachable = _node(node_bot, "--server", f"127.0.0.1:{port}", "--token", "x" * 10,
                        "--connect-seconds", "0.5")
    config = make_config(tmp_path, ["a", "b"], hands=1, start_timeout_seconds=60.0)

    async def refused() -> subprocess.CompletedProcess[str]:
        async with running(config) as (_, address):
            return await asyncio.to_thread(_node, node_bot, "--server", address, "--token", "wrong-token-1")

    refusal = asyncio.run(refused())
    for done, text in ((typo, "arena-node-bot: error: unknown option --sever; known: --server"),
                       (missing, "arena-node-bot: error: no wire contract at "),
                       (unreachable, f"arena-node-bot: error: cannot reach the dealer at 127.0.0.1:{port}"),
                       (refusal, "arena-node-bot: error: the dealer at 127.0.0.1:")):
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(text), done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "    at " not in done.stderr, done.stderr
    assert "refused the token (UNAUTHENTICATED: " in refusal.stderr


def test_the_node_bot_reconnects_through_a_dealer_restart(tmp_path: Path, node_bot: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = make_config(tmp_path, ["node", "python"], hands=4, rules={"games": ["FT"]})
    config = dataclasses.replace(base, listen=f"127.0.0.1:{port}")

    async def scenario() -> tuple[int, str, str]:
        node = await asyncio.create_subprocess_exec(
            "node", str(node_bot), "--server", f"127.0.0.1:{port}", "--token", token_for("node"),
            "--name", "node", "--verbose", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        assert node.stderr is not None
        said: list[bytes] = []

        async def until_said(text: bytes) -> None:
            while text not in (line := await node.stderr.readline()):
                assert line, b"".join(said).decode()
                said.append(line)
            said.append(line)

        async with running(config):
            # Connected and waiting for its opponent (not a fixed time: node may start slowly).
            await asyncio.wait_for(until_said(b"connected to 127.0.0.1"), 60)
        await asyncio.wait_for(until_said(b"lost (UNAVAILABLE"), 60)  # the dealer is away
        async with running(config) as (server, address):
            python = asyncio.ensure_future(play(rule_based, server=address, token=token_for("python"),
                                                name="python"))
            out, err = await asyncio.wait_for(node.communicate(), 60)
            await asyncio.wait_for(python, 30)
            await server.run_until_done()
        assert node.returncode is not None
        return node.returncode, out.decode(), (b"".join(said) + err).decode()

    code, out, err = asyncio.run(scenario())
    assert code == 0, err
    assert err.count("connected to 127.0.0.1") == 2, err
    assert "connection to 127.0.0.1" in err and "lost (UNAVAILABLE" in err
    assert "1 match(es) ended" in out or "2 match(es) ended" in out, out


def test_the_node_bot_calls_with_the_calling_policy_and_prints_its_stats(
        tmp_path: Path, node_bot: Path) -> None:
    """`--policy call` (bench.dealer's heads-up bots) only checks or calls; `--stats` prints one
    JSON line: its decisions, the first and last request's monotonic times, its CPU between."""
    config = make_config(tmp_path, ["node", "python"], hands=4, rules={"games": ["FT"]})
    bogus = _node(node_bot, "--server", "127.0.0.1:1", "--token", "x" * 10, "--policy", "fold")
    assert bogus.returncode == 2
    assert bogus.stderr.startswith("arena-node-bot: error: --policy must be one of pairs, call")

    code, out, err = _node_against_python(config, node_bot, "--policy", "call", "--stats")
    assert code == 0, err
    stats = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
    hands = load_file(str(tmp_path / "logs" / "match.phhs"))
    mine = [a.split()[1] for h in hands for a in h.fields["actions"]
            if a.startswith(f"p{h.fields['players'].index('node') + 1} ")
            and a.split()[1] != "sm"]  # its decisions, not its showdowns
    assert mine and set(mine) == {"cc"}, mine  # checks and calls only
    assert stats["decisions"] == len(mine), (stats, mine)
    assert stats["first"] <= stats["last"] and 0 <= stats["cpu_seconds"] < 60


@pytest.mark.parametrize("policy", ["pairs", "mixed"])
def test_the_node_bot_chooses_games_in_dealers_choice(tmp_path: Path, node_bot: Path,
                                                      policy: str) -> None:
    """docs/house-rules.md §28: the Node.js bot answers its CHOOSE_GAME decisions itself (an
    action, or with `--policy mixed` a strategy over the menu): no rejection, no timeout; every
    hand is dealt in an allowed game and the match replays."""
    menu = ["F7S", "FT", "FR"]
    config = make_config(tmp_path, ["node", "python"], hands=8, seed=6,
                         rules={"games": menu, "dealers_choice": True, "decision_seconds": 5.0,
                                "choice_seconds": 5.0})
    code, _out, err = _node_against_python(config, node_bot, "--policy", policy)
    assert code == 0, err
    assert "rejected" not in err
    logs = tmp_path / "logs"
    hands = load_file(str(logs / "match.phhs"))
    assert len(hands) == 8
    variants = [h.fields["variant"] for h in hands]
    assert set(variants) <= set(menu)
    assert all(variants[k] == variants[k + 1] for k in range(0, 8, 2))  # orbits of two hands
    result = json.loads((logs / "match.result.json").read_text())["decisions"]
    assert result["timeouts"] == 0 and result["rejected"] == 0
    if policy == "pairs":  # its orbits (every other one) are hold'em
        assert variants.count("FT") >= 4
    text = io.StringIO()
    assert replay_paths([str(logs / "match.phhs")], rules=Rules(), show=False, hand_id=None,
                        out=text) == 0, text.getvalue()
