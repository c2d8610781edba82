"""Every third-party module the arena (and the bot SDK) imports is a declared dependency of its
package: a plain ``pip install .`` (the Docker image) has nothing else. A module that arrives
only with a dev tool (``hypothesis``, say) fails there with ModuleNotFoundError
while every test here, run with the dev extra, passes."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (  # (sources, their pyproject, their own top-level package)
    (ROOT / "arena", ROOT / "pyproject.toml", "arena"),
    (ROOT / "bots" / "python" / "arena_bot", ROOT / "bots" / "python" / "pyproject.toml", "arena_bot"),
)


def _normal(name: str) -> str:
    """A distribution's name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared(pyproject: Path) -> set[str]:
    requirements = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    return {_normal(re.split(r"[\s;<>=!~\[]", requirement, maxsplit=1)[0])
            for requirement in requirements}


def _imported(sources: Path, own: str) -> dict[str, set[str]]:
    """Top-level modules imported anywhere in ``sources`` (in functions too), outside the
    standard library and the package itself, with the files that import them."""
    found: dict[str, set[str]] = {}
    for path in sorted(sources.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and top not in (own, "__future__"):
                    found.setdefault(top, set()).add(str(path.relative_to(sources.parent)))
    return found


@pytest.mark.parametrize(("sources", "pyproject", "own"), PACKAGES,
                         ids=[own for _, _, own in PACKAGES])
def test_every_third_party_import_is_a_declared_dependency(sources: Path, pyproject: Path,
                                                            own: str) -> None:
    declared = _declared(pyproject)
    providers = importlib.metadata.packages_distributions()
    undeclared = []
    for module, files in sorted(_imported(sources, own).items()):
        distributions = {_normal(d) for d in providers.get(module, [])}
        assert distributions, f"{module} (imported by {sorted(files)}) is not installed at all"
        if not distributions & declared:
            undeclared.append(f"{module} ({'/'.join(sorted(distributions))}) imported by "
                              f"{sorted(files)}")
    assert not undeclared, f"not in {pyproject.relative_to(ROOT)}'s dependencies: {undeclared}"


def test_the_scan_sees_an_import_made_inside_a_function(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "mod.py").write_text("import os\nfrom pkg import x\n\ndef f():\n"
                                    "    from hypothesis import given\n")
    assert set(_imported(package, "pkg")) == {"hypothesis"}
