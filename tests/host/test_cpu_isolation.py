"""A CPU hog cannot slow other tables (docs/hosted-bots.md "CPU hogs"): every instance's CPU group
sits in one parent that weighs half an ordinary process (the dealer), every instance weighs the
same there whatever its package declares, its package's ``cpu_share`` is its quota, and a
league caps that share (``max_cpu_share``). These tests check the mechanism (the groups' files
and an upper bound on a hog's CPU), never a throughput, so load cannot fail them; the hands/s
an honest table keeps beside a hog are measured by ``python -m bench.sandbox`` instead."""

from __future__ import annotations

import math
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from arena.engine.errors import ConfigError
from arena.host import cgroups
from arena.host.botpackage import BotPackage
from arena.host.sandbox import Instance, Prepared, kill, prepare, probe
from arena.league.config import league_from_mapping
from arena.tourney.config import tournament_from_mapping

pytestmark = [pytest.mark.timeout(120)]


def _package(tmp_path: Path, name: str, cpu_share: float) -> BotPackage:
    directory = tmp_path / name
    directory.mkdir(exist_ok=True)
    (directory / "arena-bot.toml").write_text(
        f'name = "{name}"\nrun = "true"\ncpu_share = {cpu_share}\n')
    return BotPackage(directory=directory, name=name, run="true", cpu_share=cpu_share)


def _cpu_group(sandbox: Prepared) -> Path:
    assert sandbox.group is not None
    found = [d for d in sandbox.group.directories
             if (d / "cpu.shares").is_file() or (d / "cpu.max").is_file()]
    assert len(found) == 1, sandbox.group.directories
    return found[0]


def _sandbox_or_skip(package: BotPackage, command: str) -> Prepared:
    if probe():
        pytest.skip(f"no sandbox here: {probe()}")
    sandbox = prepare(Instance(package=package, command=command))
    if sandbox.group is None:
        sandbox.release()
        pytest.skip("no writable cgroups here: cpu_share is a nice level only")
    return sandbox


def test_instances_weigh_the_same_in_one_parent_lighter_than_the_dealer(tmp_path: Path) -> None:
    modest = _sandbox_or_skip(_package(tmp_path, "modest", 0.3), "true")
    greedy = prepare(Instance(package=_package(tmp_path, "greedy", 4.0), command="true"))
    try:
        groups = [_cpu_group(modest), _cpu_group(greedy)]
        parent = groups[0].parent
        assert parent.name == cgroups.BOTS_GROUP and groups[1].parent == parent
        if (parent / "cpu.shares").is_file():  # cgroup v1
            assert int((parent / "cpu.shares").read_text()) == cgroups.BOTS_SHARES < 1024
            assert [int((g / "cpu.shares").read_text()) for g in groups] == \
                [cgroups.INSTANCE_SHARES] * 2
            assert [int((g / "cpu.cfs_quota_us").read_text()) for g in groups] == [30_000, 400_000]
            assert [int((g / "cpu.cfs_period_us").read_text()) for g in groups] == \
                [cgroups.PERIOD_US] * 2
        else:  # cgroup v2
            assert int((parent / "cpu.weight").read_text()) == cgroups.BOTS_WEIGHT < 100
            assert [int((g / "cpu.weight").read_text()) for g in groups] == \
                [cgroups.INSTANCE_WEIGHT] * 2
            assert [(g / "cpu.max").read_text().split() for g in groups] == \
                [["30000", str(cgroups.PERIOD_US)], ["400000", str(cgroups.PERIOD_US)]]
    finally:
        modest.release()
        greedy.release()
    assert not groups[0].exists() and not groups[1].exists()


def test_a_hog_of_two_processes_stays_under_its_quota_inside_the_parent(tmp_path: Path) -> None:
    """Two spinning processes, cpu_share 0.3: together they stay under 0.3 cores (an upper
    bound only: a loaded machine gives them less, never more), and both are in the instance's
    group under the bots' parent."""
    sandbox = _sandbox_or_skip(_package(tmp_path, "hog", 0.3),
                               "while :; do :; done & while :; do :; done")
    group = _cpu_group(sandbox)
    started = time.monotonic()
    proc = subprocess.Popen(sandbox.argv, env=sandbox.env, start_new_session=True)
    try:
        time.sleep(1.5)
        pids = (group / "cgroup.procs").read_text().split()
        used = sandbox.cpu_seconds()
        elapsed = time.monotonic() - started
    finally:
        kill(proc)
        sandbox.release()
    assert len(pids) >= 2  # the shell and its spinning child at least (plus bwrap's own)
    assert used is not None and used <= 0.3 * elapsed + 0.15, (used, elapsed)


def _league(tmp_path: Path, shares: dict[str, float], **extra: Any) -> dict[str, Any]:
    for name, share in shares.items():
        _package(tmp_path, name, share)
    return {"bots": [{"name": n, "package": n} for n in shares], **extra}


def test_the_league_caps_what_a_package_may_declare(tmp_path: Path) -> None:
    data = _league(tmp_path, {"small": 0.25, "big": 8.0})
    default = league_from_mapping(data, base_dir=tmp_path)
    assert default.max_cpu_share == 1.0
    assert [b.package.cpu_share for b in default.bots if b.package] == [0.25, 1.0]
    tight = league_from_mapping({**data, "max_cpu_share": 0.2}, base_dir=tmp_path)
    assert [b.package.cpu_share for b in tight.bots if b.package] == [0.2, 0.2]
    loose = league_from_mapping({**data, "max_cpu_share": 8}, base_dir=tmp_path)
    assert [b.package.cpu_share for b in loose.bots if b.package] == [0.25, 8.0]


@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0, 0.0, 0.01, 9.0, "1", True, [1]])
def test_max_cpu_share_is_validated(tmp_path: Path, value: object) -> None:
    data = _league(tmp_path, {"small": 0.25, "big": 8.0}, max_cpu_share=value)
    with pytest.raises(ConfigError, match="max_cpu_share"):
        league_from_mapping(data, base_dir=tmp_path)


def test_a_tournament_file_caps_packages_as_a_league_does(tmp_path: Path) -> None:
    data = _league(tmp_path, {"small": 0.25, "big": 8.0}, seed=7)
    assert [b.package.cpu_share for b in tournament_from_mapping(data, base_dir=tmp_path).bots
            if b.package] == [0.25, 1.0]
    tight = tournament_from_mapping({**data, "max_cpu_share": 0.1}, base_dir=tmp_path)
    assert [b.package.cpu_share for b in tight.bots if b.package] == [0.1, 0.1]
    with pytest.raises(ConfigError, match="max_cpu_share"):
        tournament_from_mapping({**data, "max_cpu_share": math.nan}, base_dir=tmp_path)
