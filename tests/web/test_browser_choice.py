"""Dealer's choice in the hand replayer, in headless Chromium (docs/house-rules.md §28): a real
`arena web` over a league whose event log (written by the league's own log writer) holds two
choices; each hand's replayer head says who chose its game, or that the dealer chose for a
chooser that timed out, and the match page lists both."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.procs import env
from tests.web.conftest import ARTIFACTS
from tests.web.test_site_choice import EVIL, dealers_choice_league


@pytest.fixture(scope="module")
def web_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp: Path = tmp_path_factory.mktemp("web-choice")
    league = dealers_choice_league(tmp)
    web = subprocess.Popen([sys.executable, "-m", "arena.cli", "web", "--league", str(league),
                            "--port", "0"], cwd=tmp, env=env(), stdout=subprocess.PIPE, text=True)
    assert web.stdout is not None
    first = web.stdout.readline()
    found = re.match(r"web: (\S+)", first)
    assert found, first
    try:
        yield found.group(1)
    finally:
        web.terminate()
        web.wait(timeout=10)


def test_the_replayer_says_who_chose_each_hands_game(web_url: str, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    said = {1: "dealer's choice: beta chose Fixed-limit Texas Hold'em (FT) for hands 1-2",
            3: f"dealer's choice: {EVIL} timed out; the dealer chose Seven Card Stud (F7S) for "
               "hands 3-4"}
    for number in (1, 2, 3, 4):
        page.goto(f"{web_url}hand/r1-t1-h{number}")
        head = page.locator(".replayer-head .choice")
        assert head.inner_text() == said[1 if number < 3 else 3]
        assert ("automatic" in (head.get_attribute("class") or "")) == (number >= 3)
    page.screenshot(path=str(ARTIFACTS / "replayer-dealers-choice.png"), full_page=True)
    page.goto(f"{web_url}match/r1-t1")
    assert page.locator("ul.choices li").all_inner_texts() == [said[1], said[3]]
    assert not errors, errors
    page.close()
