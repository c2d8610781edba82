"""A live league of example bots with the web app on, a spy recording every byte it serves, and
headless Chromium (Debian's /usr/bin/chromium driven by Playwright)."""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import sys
import threading
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.server.procs import ROOT, env

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = ROOT / "test-artifacts" / "web"
XSS_NAME = "<img src=x onerror=alert(1)>"
# The example bots with a few ms of thought (paced_bots.py): the league must last long enough for
# the spy to record many live updates (sent at most every 0.2 s per table) however fast the dealer.
PACED_BOTS = Path(__file__).with_name("paced_bots.py")
BOTS = [("station", "station"), ("rules", "rules"), ("random", "random")]
HANDS_PER_MATCH = 20


def write_league(tmp: Path) -> Path:
    lines = [f"name = {json.dumps(XSS_NAME)}", 'format = "round_robin"', "seats_per_table = 2",
             f"hands_per_match = {HANDS_PER_MATCH}", "duplicate = true", "tables_at_once = 6",
             "seed = 11", 'listen = "127.0.0.1:0"', 'store = "league.sqlite"', 'log_dir = "logs"',
             "start_timeout_seconds = 20", "[rules]", "decision_seconds = 2.0",
             "time_bank_seconds = 5.0"]
    for k, (name, _) in enumerate(BOTS):
        lines += ["[[bots]]", f"name = {json.dumps(name)}", f'token = "token-web-{k}-0001"']
    path = tmp / "league.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@dataclass
class Served:
    """One response the web app gave while the league ran."""

    url: str
    status: int
    body: str
    at: float  # when the request was sent
    done: float  # when its response had been read


@dataclass
class LiveLeague:
    league: Path
    log_dir: Path
    web_url: str  # the web app of `arena web` after the league (the league's own has stopped)
    live_url: str
    output: str
    stream: list[tuple[float, str]] = field(default_factory=list)  # SSE messages as received
    pages: list[Served] = field(default_factory=list)
    live_screenshot: Path | None = None
    live_tables_seen: int = 0

    def hands(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for path in sorted(self.log_dir.glob("*.phhs")):
            if not path.name.endswith(".void.phhs"):
                for hand in tomllib.loads(path.read_text(encoding="utf-8")).values():
                    out[str(hand["_hand_id"])] = hand
        return out


def _get(url: str, timeout: float = 5.0) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")
    except (OSError, http.client.HTTPException):  # the league's web server stops with the league
        return 0, ""


def _read_stream(url: str, into: list[tuple[float, str]], stop: threading.Event) -> None:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            buffer = ""
            while not stop.is_set():
                chunk = response.readline()
                if not chunk:
                    return
                buffer += chunk.decode("utf-8")
                if buffer.endswith("\n\n"):
                    into.append((time.time(), buffer))
                    buffer = ""
    except (OSError, http.client.HTTPException):
        return


def _poll_pages(base: str, match_ids: list[str], into: list[Served], stop: threading.Event) -> None:
    while not stop.is_set():
        for path in ["", "live", "api/live.json", "leaderboard", "api/leaderboard.json"]:
            at = time.time()
            status, body = _get(base + path)
            into.append(Served(path, status, body, at, time.time()))
        for match_id in match_ids:
            at = time.time()
            status, body = _get(f"{base}match/{match_id}")
            into.append(Served(f"match/{match_id}", status, body, at, time.time()))
            for hand_id in re.findall(r'href="/hand/([^"]+)"', body)[-3:]:
                for path in (f"hand/{hand_id}", f"api/hand/{hand_id}.json"):
                    at = time.time()
                    status, text = _get(base + path)
                    into.append(Served(path, status, text, at, time.time()))
            for kind in ("phhs", "events", "result"):
                at = time.time()
                status, text = _get(f"{base}download/{match_id}/{kind}")
                into.append(Served(f"download/{match_id}/{kind}", status, text, at, time.time()))
        stop.wait(0.2)


def _browser_live_view(url: str, league: LiveLeague, ready: threading.Event) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url + "live")
        page.wait_for_selector("#live-status:text-is('connected')", timeout=20_000)
        ready.set()
        page.wait_for_selector(".live-table", timeout=20_000)
        page.wait_for_timeout(1500)
        league.live_tables_seen = page.locator(".live-table").count()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        league.live_screenshot = ARTIFACTS / "live.png"
        page.screenshot(path=str(league.live_screenshot), full_page=True)
        browser.close()


@pytest.fixture(scope="session")
def live_league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveLeague]:
    tmp = tmp_path_factory.mktemp("web-league")
    league = write_league(tmp)
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", str(league),
                               "--web-port", "0"], cwd=tmp, env=env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    assert server.stdout is not None
    lines: list[str] = []
    web_url = address = None
    for line in server.stdout:
        lines.append(line)
        if m := re.match(r"web: (\S+)", line):
            web_url = m.group(1)
        if m := re.search(r"listening on (\S+);", line):
            address = m.group(1)
            break
    assert web_url and address, "".join(lines)
    stop = threading.Event()
    result = LiveLeague(league, tmp / "logs", "", web_url, "")
    spy_stream = threading.Thread(target=_read_stream,
                                  args=(web_url + "live/events", result.stream, stop), daemon=True)
    spy_stream.start()
    match_ids = [f"r1-t{t}-c{c}" for t in (1, 2, 3) for c in (1, 2)]
    spy_pages = threading.Thread(target=_poll_pages, args=(web_url, match_ids, result.pages, stop),
                                 daemon=True)
    spy_pages.start()
    ready = threading.Event()
    viewer = threading.Thread(target=_browser_live_view, args=(web_url, result, ready), daemon=True)
    viewer.start()
    ready.wait(timeout=30)
    bots = [subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "bot", f"{PACED_BOTS}:{kind}", "--server", address,
         "--token", f"token-web-{k}-0001", "--name", name, "--seed", "1"],
        cwd=ROOT, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for k, (name, kind) in enumerate(BOTS)]
    try:
        out, err = server.communicate(timeout=240)
    finally:
        stop.set()
        if server.poll() is None:
            server.kill()
        for proc in bots:
            proc.terminate()
        for proc in bots:
            proc.wait(timeout=10)
    viewer.join(timeout=30)
    spy_pages.join(timeout=30)
    result.output = "".join(lines) + out + err
    assert server.returncode == 0, result.output
    web = subprocess.Popen([sys.executable, "-m", "arena.cli", "web", "--league", str(league),
                            "--port", "0"], cwd=tmp, env=env(), stdout=subprocess.PIPE, text=True)
    assert web.stdout is not None
    first = web.stdout.readline()
    m = re.match(r"web: (\S+)", first)
    assert m, first
    result.web_url = m.group(1)
    try:
        yield result
    finally:
        web.terminate()
        web.wait(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one test module: Playwright's sync API keeps an asyncio loop running in this
    thread while it is open, which other modules' ``asyncio.run`` must not meet."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()
