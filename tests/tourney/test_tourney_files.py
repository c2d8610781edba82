"""The example tournament files (issue 39 item 6): docs/tournament-file.md's loads and plays,
deploy/tournament.toml loads with its tokens from secret files."""

from __future__ import annotations

import re
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from arena.tourney.config import load_tournament, tournament_from_mapping
from tests.server.procs import ROOT, env

pytestmark = pytest.mark.timeout(120)


def _example() -> str:
    match = re.search(r"```toml\n(.*?)```", (ROOT / "docs" / "tournament-file.md").read_text(), re.S)
    assert match is not None
    return match.group(1)


def test_the_docs_example_loads_and_plays(tmp_path: Path) -> None:
    path = tmp_path / "friday.toml"
    path.write_text(_example())
    config = load_tournament(path)
    assert (config.name, config.format.kind, config.format.starting_stack) == ("friday", "freezeout", 1000)
    assert [b.name for b in config.bots] == ["alice", "bob", "carol", "dave"]
    assert config.format.games == ("NT",) and config.rules.decision_seconds == 2.0
    assert config.log_dir == tmp_path / "friday-logs" and config.store == tmp_path / "friday.sqlite"
    played = subprocess.run([sys.executable, "-m", "arena.cli", "tournament", "run", str(path),
                             "--simulate", "call"], cwd=tmp_path, env=env(), capture_output=True,
                            text=True, timeout=100)
    assert played.returncode == 0, played.stdout + played.stderr
    assert "results:" in played.stdout
    logs = tmp_path / "friday-logs"
    assert stat.S_IMODE(logs.stat().st_mode) == 0o700
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in logs.iterdir()} == {
        name: 0o600 for name in ("results.json", "standings.txt", "standings.csv")}


def test_the_deploy_tournament_file_is_a_valid_tournament(tmp_path: Path) -> None:
    text = (ROOT / "deploy" / "tournament.toml").read_text()
    data = tomllib.loads(text)
    league = tomllib.loads((ROOT / "deploy" / "league.toml").read_text())
    assert [b["name"] for b in data["bots"]] == [b["name"] for b in league["bots"]]
    for bot in data["bots"]:
        token = tmp_path / bot["name"]
        token.write_text(f"token-of-{bot['name']}\n")
        bot["token_file"] = str(token)
    config = tournament_from_mapping(data, base_dir=tmp_path, source_toml=text)
    assert [b.token for b in config.bots] == [f"token-of-{b['name']}" for b in data["bots"]]
    assert config.format.kind == "freezeout" and config.metrics_port == 9100
