"""Bot packages (issue 36): an arena-bot.toml is untrusted input; every problem is reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine.errors import ConfigError
from arena.host.botpackage import PackageError, is_package, load_package

GOOD = 'name = "b"\nrun = "python3 -m arena_bot bot.py:decide"\n'


def _package(tmp_path: Path, text: str) -> Path:
    (tmp_path / "arena-bot.toml").write_text(text)
    return tmp_path


def test_a_minimal_package_takes_the_defaults(tmp_path: Path) -> None:
    package = load_package(_package(tmp_path, GOOD))
    assert package.directory == tmp_path.resolve()
    assert (package.name, package.build, package.memory_mib, package.cpu_share) == ("b", "", 512, 1.0)
    assert is_package(tmp_path) and not is_package(tmp_path / "nowhere")


@pytest.mark.parametrize(("line", "expected"), [
    ("memory_mib = nan", "'memory_mib' must be an integer"),
    ("cpu_share = nan", "'cpu_share' must be a finite number"),
    ("cpu_share = inf", "'cpu_share' must be a finite number"),
    ("memory_mib = 99999999999999", "from 32 to 16384"),
    ("processes = true", "'processes' must be an integer"),
    ("open_files = 1", "from 16 to 65536"),
    ("disk_mib = -1", "from 1 to 16384"),
    ("build_seconds = 1e300", "from 1 to 3600"),
    ("build = 7", "'build' must be a string"),
    (f"build = \"{'x' * 5000}\"", "'build' is over 4096 characters"),
    ("colour = \"red\"", "unknown key 'colour'"),
])
def test_each_bad_value_is_named(tmp_path: Path, line: str, expected: str) -> None:
    with pytest.raises(PackageError) as caught:
        load_package(_package(tmp_path, GOOD + line + "\n"))
    assert any(expected in problem for problem in caught.value.problems), caught.value.problems


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    with pytest.raises(PackageError) as caught:
        load_package(_package(tmp_path, 'name = 3\nrun = " "\nmemory_mib = "lots"\nx = 1\n'))
    assert len(caught.value.problems) == 4, caught.value.problems
    assert "'run' is empty" in str(caught.value)


def test_missing_keys_and_files(tmp_path: Path) -> None:
    with pytest.raises(PackageError, match="'run' is missing"):
        load_package(_package(tmp_path, 'name = "b"\n'))
    with pytest.raises(PackageError, match="not a directory"):
        load_package(tmp_path / "absent")
    (tmp_path / "arena-bot.toml").write_bytes(b"name = \xff\n")
    with pytest.raises(ConfigError, match=r"arena-bot\.toml"):
        load_package(tmp_path)
