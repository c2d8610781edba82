"""The Node.js example bot (bots/node) plays every game of a match against a Python bot."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest
from arena_bot import play
from arena_bot.examples import rule_based

from arena.engine.phh import iter_replays, load_file
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


def test_the_node_bot_plays_a_horse_match(tmp_path: Path, node_bot: Path) -> None:
    config = make_config(tmp_path, ["node", "python"], hands=10, seed=4,
                         rules={"decision_seconds": 5.0})

    async def scenario() -> tuple[int, str, str]:
        async with running(config) as (server, address):
            node = await asyncio.create_subprocess_exec(
                "node", str(node_bot), "--server", address, "--token", token_for("node"),
                "--name", "node", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            python = asyncio.ensure_future(play(rule_based, server=address,
                                                token=token_for("python"), name="python",
                                                reconnect_seconds=2.0))
            out, err = await asyncio.wait_for(node.communicate(), 60)
            await asyncio.wait_for(python, 30)
            await server.run_until_done()
            assert node.returncode is not None
            return node.returncode, out.decode(), err.decode()

    code, out, err = asyncio.run(scenario())
    assert code == 0, err
    assert "1 match(es) ended" in out, out + err
    assert "rejected" not in err
    hands = load_file(str(tmp_path / "logs" / "match.phhs"))
    assert {h.fields["variant"] for h in hands} == {"FT", "FO/8", "FR", "F7S", "F7S/8"}
    assert all(error is None for _, _, error in iter_replays(hands))
    assert all(h.fields["_timeouts"] == [0, 0] and h.fields["_absent"] == [0, 0] for h in hands)
    node_actions = sum(1 for h in hands for a in h.fields["actions"]
                       if a.startswith(f"p{h.fields['players'].index('node') + 1} "))
    assert node_actions >= 10
