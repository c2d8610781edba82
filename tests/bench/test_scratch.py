"""A benchmark's scratch directories are gone once its process has ended (bench.league left tens
of MB per run in the temporary directory: gigabytes after a day of measuring)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_RUN = """
from bench.scratch import scratch_dir
path = scratch_dir("arena-test-scratch-")
(path / "logs").mkdir()
(path / "logs" / "hands.phhs").write_text("x")
print(path)
"""


def test_a_scratch_directory_is_removed_when_the_process_ends() -> None:
    done = subprocess.run([sys.executable, "-c", _RUN], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    path = Path(done.stdout.strip())
    assert path.name.startswith("arena-test-scratch-")
    assert not path.exists()
