"""The docs stay true: the league file example loads and runs, every key is documented, the
first-bot example bot plays."""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.league.config import LeagueConfig, load_league
from arena.match.spec import AbsentPolicy
from tests.server.procs import ROOT, env

pytestmark = pytest.mark.timeout(240)

DOCS = ROOT / "docs"


def _block(page: str, language: str) -> str:
    match = re.search(rf"```{language}\n(.*?)```", (DOCS / page).read_text(), re.S)
    assert match is not None, f"{page} has no {language} example"
    return match.group(1)


def test_every_league_key_is_documented() -> None:
    text = (DOCS / "league-file.md").read_text()
    documented = set(re.findall(r"^\| `(\w+)`(?:, `(\w+)`)? \|", text, re.M))
    documented = {key for pair in documented for key in pair if key}
    keys = {f.name for f in dataclasses.fields(LeagueConfig)} - {"source_toml"}
    assert documented >= keys, sorted(keys - documented)


def test_the_league_file_example_loads_and_runs(tmp_path: Path) -> None:
    example = _block("league-file.md", "toml")
    (tmp_path / "spring.toml").write_text(example)
    config = load_league(tmp_path / "spring.toml")
    assert (config.name, config.format, config.hands_per_match, config.absent) == (
        "spring", "round_robin", 200, AbsentPolicy.WAIT)
    assert [b.name for b in config.bots] == ["alice", "bob"] and config.rules.decision_seconds == 5.0
    # Run it, shortened: fewer hands, any free port, no metrics port.
    short = (example.replace("hands_per_match = 200", "hands_per_match = 6")
             .replace('listen = "0.0.0.0:50051"', 'listen = "127.0.0.1:0"')
             .replace("metrics_port = 9100 ", "# metrics_port = 9100 "))
    (tmp_path / "short.toml").write_text(short)
    league = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", "short.toml"],
                              cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    assert league.stdout is not None
    address = None
    for line in league.stdout:
        if address := re.search(r"listening on (\S+);", line):
            break
    assert address is not None
    bots = [subprocess.Popen([sys.executable, "-m", "arena.cli", "bot", "call", "--server", address.group(1),
                              "--token", token, "--name", name], cwd=ROOT, env=env(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for name, token in (("alice", "a-long-random-secret-1"), ("bob", "a-long-random-secret-2"))]
    out = league.stdout.read()
    assert league.wait(timeout=180) == 0, out
    for bot in bots:
        assert bot.wait(timeout=60) == 0
    assert (tmp_path / "spring-logs" / "leaderboard.csv").exists()


@pytest.mark.parametrize("page", ["first-bot.md", "../README.md"])
def test_the_first_bot_example_plays_a_practice_match(tmp_path: Path, page: str) -> None:
    """The first bot of docs/first-bot.md, and the README's shorter one, each play."""
    (tmp_path / "my_bot.py").write_text(_block(page, "python"))
    out = subprocess.run([sys.executable, "-m", "arena.cli", "practice", "--bot", "my_bot.py:decide",
                          "--hands", "10", "--out", str(tmp_path / "logs")],
                         cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=200)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "10 hands played" in out.stdout and "0 replies rejected" in out.stdout


def test_every_view_field_and_helper_is_documented() -> None:
    tree = ast.parse((ROOT / "bots" / "python" / "arena_bot" / "view.py").read_text())
    view = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SeatView")
    members = {n.name for n in view.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    members |= {"request", "choices"}  # set in __init__
    text = (DOCS / "python-sdk.md").read_text()
    missing = sorted(name for name in members if f"`{name}" not in text and f" {name}(" not in text
                     and f"`{name}(" not in text and f", `{name}" not in text)
    assert not missing, missing


def test_every_rules_key_and_bot_key_is_documented() -> None:
    """docs/league-file.md's rules table lacked `ante_kind` and its bots row `token_file`."""
    from arena.engine.configfile import file_keys
    from arena.engine.rules import STAKES_KEYS, Rules
    from arena.league.config import LeagueBot

    text = (DOCS / "league-file.md").read_text()
    rules_table = text.split("\n## Rules\n", 1)[1].split("\n## ", 1)[0]
    documented = {key for pair in re.findall(r"^\| `(\w+)`(?:, `(\w+)`)? \|", rules_table, re.M)
                  for key in pair if key}
    keys = file_keys(Rules) | set(STAKES_KEYS)
    assert documented >= keys, sorted(keys - documented)
    bots_row = next(line for line in text.splitlines() if line.startswith("| `bots` |"))
    for key in (*file_keys(LeagueBot), "token_file"):
        assert f"`{key}`" in bots_row, key


def test_the_house_rules_list_every_rules_key_with_its_default() -> None:
    """docs/house-rules.md §10 is the rules reference: every `[rules]` key, with the default the
    code has."""
    from arena.engine.configfile import file_keys
    from arena.engine.rules import STAKES_KEYS, Rules

    text = (DOCS / "house-rules.md").read_text()
    table = text.split("## §10 ", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for keys, default in re.findall(r"^\| (`\w+`(?:, `\w+`)?) \| ([^|]+) \|", table, re.M):
        names = re.findall(r"`(\w+)`", keys)
        values = [v.strip() for v in default.split("(")[0].split(",")] if len(names) > 1 else [default]
        rows.update(zip(names, values, strict=True))
    assert set(rows) == file_keys(Rules) | set(STAKES_KEYS)
    defaults = Rules().to_mapping()
    for key, shown in rows.items():
        value = defaults.get(key)
        if isinstance(value, bool):
            assert shown.strip() == str(value).lower(), key
        elif isinstance(value, int | float):
            assert shown.split()[0] == str(value), key
        elif isinstance(value, str):
            assert shown.strip() == f'`"{value}"`', key


# A citation of the house rules: `docs/house-rules.md §4`, `docs/house-rules.md §3 and §4`,
# `docs/house-rules.md §1/§5`, or a link `house-rules.md#s6`.
_CITATION = re.compile(r"house-rules\.md(?:\s|#|//)*(§\d+(?:(?:/|, | and |-)§?\d+)*)")


def test_every_citation_of_the_house_rules_names_a_section_it_has() -> None:
    """Code, tests, the wire contract and the docs cite docs/house-rules.md by section number;
    each cited number is a section of the page (with its anchor ``sN``)."""
    text = (DOCS / "house-rules.md").read_text()
    sections = {int(n) for n in re.findall(r"^<a id=\"s(\d+)\"></a>\n\n## §\1 ", text, re.M)}
    assert sections == set(range(1, max(sections) + 1))
    index = text.split("**Sections.**", 1)[1].split("\n\n", 1)[0]
    assert [int(n) for n in re.findall(r"\(#s(\d+)\)", index)] == sorted(sections)  # the index
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    cited: dict[int, list[str]] = {}
    for name in listed:
        path = ROOT / name
        if path.suffix not in {".py", ".pyi", ".md", ".proto", ".toml"} or not path.exists():
            continue
        found = path.read_text(encoding="utf-8", errors="replace")
        for refs in _CITATION.findall(found):
            for number in re.findall(r"\d+", refs):
                cited.setdefault(int(number), []).append(name)
        for number in re.findall(r"house-rules\.md#s(\d+)", found):
            cited.setdefault(int(number), []).append(name)
    assert len(cited) >= 9
    assert {n: names for n, names in cited.items() if n not in sections} == {}


def test_the_cli_page_covers_every_command() -> None:
    """docs/cli.md says it covers every `arena` command; it left out worker, web, match and
    tournament."""
    import argparse

    from arena.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    text = (DOCS / "cli.md").read_text()
    missing = [name for name in commands.choices if f"`arena {name}" not in text]
    assert not missing, missing


# A file a page names: a relative link's target (from the page's folder, as GitHub resolves
# it; from the repository's root when it starts with "/"), or a path in backticks under one of
# the repository's folders (README "Performance" names the modules it describes), from the root
# or the page's folder (protos/README.md names arena/v1/arena.proto as protoc's -Iprotos sees it).
_LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_NAMED_PATH = re.compile(r"`((?:arena|bench|tests|docs|deploy|bots|scripts|protos|tools)/[\w./-]+"
                         r"\.(?:py|md|sh|toml|proto|json|ya?ml|js|ts))`")


def _pages() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    return [ROOT / name for name in listed if "node_modules" not in name and (ROOT / name).exists()]


def _missing(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    missing = []
    for link in _LINK.findall(text):
        target = link.split("#")[0]
        if not target or re.match(r"[a-z][a-z0-9+.-]*:", link):
            continue
        if not (ROOT / target[1:] if target.startswith("/") else page.parent / target).exists():
            missing.append(target)
    missing += [name for name in _NAMED_PATH.findall(text)
                if not (ROOT / name).exists() and not (page.parent / name).exists()]
    return missing


def test_every_file_a_page_names_exists() -> None:
    pages = _pages()
    assert {ROOT / "README.md", ROOT / "docs" / "performance-history.md"} <= set(pages)
    missing = {str(page.relative_to(ROOT)): names for page in pages if (names := _missing(page))}
    assert missing == {}


def test_a_page_naming_a_missing_file_is_caught(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "there.md").write_text("# There\n")
    page = tmp_path / "page.md"
    page.write_text("See [the history](docs/no-such-page.md) and `arena/no_such_module.py`, "
                    "[a site](https://example.org/x.md), [a heading](#performance), `arena/cli.py`, "
                    "[an anchor](docs/there.md#there), [titled](docs/there.md \"There\"), "
                    "[gone, titled](docs/gone.md \"Gone\"), [from the root](/docs/none.md).\n")
    assert _missing(page) == ["docs/no-such-page.md", "docs/gone.md", "/docs/none.md",
                              "arena/no_such_module.py"]
