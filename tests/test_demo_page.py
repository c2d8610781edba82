"""`make demo` keeps its web page up until the user is done, and says how to open it again
(issue 39 item 5: before, a run without a terminal ended with the page gone and no word)."""

from __future__ import annotations

import io
import shlex
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

import arena.storage.tokens as tokens_module
from arena.demo import keep_page
from arena.league.config import load_league
from arena.league.runner import LeagueRun
from tests.league.test_league_e2e import write_league
from tests.server.procs import free_port

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def league(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)
    path = write_league(tmp_path, [("alpha", "call"), ("beta", "call")], hands_per_match=4)
    run = LeagueRun(load_league(path))
    run._league()
    run.close()
    return path


def _closed(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def test_without_a_terminal_it_prints_the_command_that_opens_the_page_again(league: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    out = io.StringIO()
    keep_page(league, url, interactive=False, out=out)
    text = out.getvalue()
    assert "to open the leaderboard and replayer again: " in text and url in text, text
    command = shlex.split(text.split("again: ", 1)[1].split(" (then ", 1)[0])
    web = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            if not _closed(port):
                break
            assert web.poll() is None
            time.sleep(0.1)
        page = urllib.request.urlopen(url + "leaderboard", timeout=10).read().decode()
        assert "Leaderboard" in page
    finally:
        web.terminate()
        web.wait(timeout=10)


def test_at_a_terminal_the_page_stays_up_until_the_user_is_done(league: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    seen: list[str] = []

    def user(prompt: str) -> None:
        seen.append(prompt)
        seen.append(urllib.request.urlopen(url + "leaderboard", timeout=10).read().decode())

    out = io.StringIO()
    keep_page(league, url, interactive=True, ask=user, out=out)
    assert url in seen[0] and "Enter or Ctrl-C stops it" in seen[0]
    assert "Leaderboard" in seen[1]
    assert _closed(port)  # stopped once the user was done
    assert "stopped; to open the leaderboard and replayer again: " in out.getvalue()


def test_ctrl_c_at_the_prompt_stops_the_page_quietly(league: Path) -> None:
    port = free_port()

    def ctrl_c(_prompt: str) -> None:
        raise KeyboardInterrupt

    out = io.StringIO()
    keep_page(league, f"http://127.0.0.1:{port}/", interactive=True, ask=ctrl_c, out=out)
    assert _closed(port) and "stopped;" in out.getvalue()
