"""docs/agents.md: its example league loads, and its tables match the code."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from arena.engine.timecontrol import PRESETS
from arena.gateway.agenttext import agent_text
from arena.gateway.limits import GatewayLimits
from arena.league.config import league_from_mapping

PAGE = Path(__file__).resolve().parents[2] / "docs" / "agents.md"


def test_the_example_league_loads_with_its_time_control(tmp_path: Path) -> None:
    text = PAGE.read_text()
    block = re.search(r"```toml\n(# agents-league.toml\n.*?)```", text, re.S)
    assert block is not None
    config = league_from_mapping(tomllib.loads(block.group(1)), base_dir=tmp_path)
    assert [b.name for b in config.bots] == ["json-agent", "mcp-agent", "rules", "station"]
    assert (config.rules.decision_seconds, config.rules.time_bank_seconds) == (30.0, 600.0)


def test_the_time_control_table_is_the_code_s() -> None:
    rows = re.findall(r"^\| `([\w-]+)` \| (\d+) \| (\d+) \|", PAGE.read_text(), re.M)
    assert {name: (float(d), float(b)) for name, d, b in rows} == {
        p.name: (p.decision_seconds, p.time_bank_seconds) for p in PRESETS.values()}


def test_the_agent_guide_states_the_bounds_in_force() -> None:
    text = agent_text(GatewayLimits(max_message_bytes=2048, hard_frame_bytes=8192))
    assert "At most 2048 bytes a frame (8192 closes the socket" in text
    assert "{" + "max_message_bytes}" not in text
