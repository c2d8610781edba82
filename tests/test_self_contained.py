"""The repository builds, runs and passes its tests with nothing beside it (issue 37 item 1): no
tracked file names a folder of one machine or the shared folder the project started from, and
the rules are cited from docs/house-rules.md, not from a file outside the repository."""

from __future__ import annotations

import re
import subprocess

from tests.server.procs import ROOT

# Spelled in pieces so that this file does not match itself. A machine's folder is a path that
# starts with it (a sandbox's folder `/arena/work` and what is in it are not).
_OUTSIDE = re.compile("|".join((r"\.\./" + "shared", r"(?<![\w.-])/" + "work/", r"\bRULES" + r"\.md",
                                r"\bORACLE" + r"\.md", r"\bSTYLE" + r"\.md", "ARENA_" + "SHARED")))


def test_no_tracked_file_names_a_path_outside_the_repository() -> None:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    found = []
    for name in listed:
        path = ROOT / name
        if not path.is_file() or path.suffix in {".phh", ".binpb", ".png", ".ico"}:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace")
                                      .splitlines(), start=1):
            if _OUTSIDE.search(line):
                found.append(f"{name}:{number}: {line.strip()[:120]}")
    assert found == []


def test_the_golden_hands_are_in_the_repository() -> None:
    from tests.fixtures import WSOP_2023_43

    assert WSOP_2023_43.is_relative_to(ROOT) and len(list(WSOP_2023_43.glob("*.phh"))) == 51
    assert (WSOP_2023_43.parent / "README.md").read_text().count("Licence") == 1
