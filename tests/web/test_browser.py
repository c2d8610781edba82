"""The web app in headless Chromium against a live league of example bots (issue 9).

One league runs for the whole module (see conftest): the live page is watched while it plays,
a spy records every byte served meanwhile, and `arena web` serves the finished league after.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any

import pytest

from arena.server.eventrecord import read_events
from tests.server.procs import ROOT, env
from tests.web.conftest import ARTIFACTS, XSS_NAME, LiveLeague

CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


def dealt_cards(hand: dict[str, Any], upto: int | None = None) -> list[list[tuple[str, bool]]]:
    """Each seat's cards from the PHH ``d dh`` lines (up to action line ``upto``), with up flags:
    in stud the third to sixth cards of a seat are dealt face up (docs/house-rules.md §2, stud streets)."""
    n = len(hand["starting_stacks"])
    stud = str(hand["variant"]) in ("FR", "F7S", "F7S/8")
    seats: list[list[tuple[str, bool]]] = [[] for _ in range(n)]
    for line in hand["actions"][:upto]:
        words = line.split()
        if words[:2] == ["d", "dh"]:
            seat = int(words[2][1:]) - 1
            for k in range(0, len(words[3]), 2):
                index = len(seats[seat])
                seats[seat].append((words[3][k:k + 2], stud and 2 <= index <= 5))
    return seats


def shown_seats(hand: dict[str, Any]) -> set[int]:
    return {int(line.split()[0][1:]) - 1 for line in hand["actions"]
            if len(line.split()) == 3 and line.split()[1] == "sm"}


def hidden_cards(hand: dict[str, Any], seats_shown: set[int]) -> set[str]:
    return {card for seat, cards in enumerate(dealt_cards(hand)) if seat not in seats_shown
            for card, up in cards if not up}


# --------------------------------------------------------------------------- spy


# File modification times tick with the kernel's coarse clock, a few ms behind time.time().
FS_CLOCK_SLACK_SECONDS = 0.05


def test_spy_finds_no_hidden_card_in_any_byte_served_during_live_hands(live_league: LiveLeague) -> None:
    """Every SSE message, page and JSON served while the league played: no face-down card of a
    seat that had not shown it (docs/house-rules.md §9), no log download or seed of a running match."""
    hands = live_league.hands()
    messages = [text for _, text in live_league.stream if text.startswith("event: table")]
    assert len(messages) > 20, "the live stream carried too little to prove anything"
    states = [json.loads(text.split("data: ", 1)[1]) for text in messages]
    during_hands = [s for s in states if s.get("hand_id") in hands]
    assert len({s["hand_id"] for s in during_hands}) >= 5
    for state in during_hands:
        hand = hands[state["hand_id"]]
        shown = {h["seat"] for h in state.get("shown") or []}
        physical = hand["_seats"]  # engine seat k sits at physical seat physical[k]
        shown_engine = {k for k, p in enumerate(physical) if p in shown}
        leaked = set(CARD.findall(json.dumps(state))) & hidden_cards(hand, shown_engine)
        assert not leaked, (state["hand_id"], leaked, state)
    finished_at = {p.stem.removesuffix(".result"): p.stat().st_mtime
                   for p in live_league.log_dir.glob("*.result.json")}
    pages = live_league.pages
    assert len(pages) > 30
    for served in pages:
        if served.url.startswith("download/"):
            match_id = served.url.split("/")[1]
            # Answered before the seed was revealed (the result file's last write): refused.
            if served.done < finished_at[match_id] - FS_CLOCK_SLACK_SECONDS:
                assert served.status == 404, served.url
                assert "match_seed" not in served.body
            continue
        assert "match_seed" not in served.body
        if not served.url.startswith(("hand/", "api/hand/")) or served.status != 200:
            continue
        hand_id = served.url.split("/")[-1].removesuffix(".json")
        match_id = hands[hand_id]["_match_id"]
        if served.done >= finished_at[match_id] - FS_CLOCK_SLACK_SECONDS:
            continue  # the answer may have come after the reveal
        hand = hands[hand_id]
        leaked = set(CARD.findall(served.body)) & hidden_cards(hand, shown_seats(hand))
        assert not leaked, (served.url, leaked)
    assert any(s.url.startswith("api/hand/") and s.status == 200 and '"revealed":false' in
               s.body.replace(" ", "") for s in pages), "no hand of a running match was fetched"


def test_live_page_showed_the_tables_in_chromium(live_league: LiveLeague) -> None:
    assert live_league.live_tables_seen >= 1, live_league.output
    assert live_league.live_screenshot is not None and live_league.live_screenshot.stat().st_size > 10_000


# --------------------------------------------------------------------------- leaderboard


def test_leaderboard_page_shows_the_numbers_of_arena_leaderboard_json(live_league: LiveLeague,
                                                                       browser: Any) -> None:
    out = subprocess.run([sys.executable, "-m", "arena.cli", "leaderboard", str(live_league.league),
                          "--format", "json"], cwd=live_league.league.parent, env=env(),
                         capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    expected = {r["bot"]: r for r in data["results"] if r["game"] == "all"}
    faults: dict[tuple[str, str], int] = {}
    for row in data["faults"]:
        for key in ("timeouts", "absent_decisions", "rejected_replies", "disconnects"):
            faults[(row["bot"], key)] = faults.get((row["bot"], key), 0) + row[key]
    status, served = _get(live_league.web_url + "api/leaderboard.json")
    assert status == 200 and json.loads(served) == data
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(live_league.web_url + "leaderboard")
    rows = page.locator("tr.result")
    assert rows.count() == len(expected) == 3
    for k in range(rows.count()):
        row = rows.nth(k)
        bot = row.get_attribute("data-bot")
        want = expected[bot]
        assert row.locator("td.hands").inner_text() == str(want["hands"])
        assert row.locator("td.chips").inner_text() == f"{want['chips_won']:+d}"
        assert row.locator("td.mbb").inner_text() == f"{want['mbb_per_hand']:+.1f}"
        assert row.locator("td.raw").inner_text() == f"{want['raw']['ci_half_width_mbb']:.1f}"
        assert row.locator("td.dup").inner_text() == f"{want['duplicate_adjusted']['ci_half_width_mbb']:.1f}"
        for cell, key in (("timeouts", "timeouts"), ("absent", "absent_decisions"),
                          ("rejected", "rejected_replies"), ("disconnects", "disconnects")):
            assert row.locator(f"td.{cell}").inner_text() == str(faults[(bot, key)])
    assert page.locator("svg.errorbars line.ci.raw").count() == 3
    assert page.locator("svg.errorbars line.ci.dup").count() == 3
    assert page.locator("svg.heatmap g.cell").count() == 6
    assert page.locator("svg.bankroll polyline").count() == 3
    # The league's name (an XSS attempt) is text, never markup.
    assert XSS_NAME in page.locator("header").inner_text()
    assert page.locator("img").count() == 0
    assert dialogs == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "leaderboard.png"), full_page=True)
    page.goto(live_league.web_url + "leaderboard?game=F7S")
    assert page.locator("tr.result").first.get_attribute("data-game") == "F7S"
    page.close()


# --------------------------------------------------------------------------- replayer


def _read_table(page: Any, root: str) -> tuple[int, list[list[tuple[str, bool]]], list[int]]:
    step = int(page.get_attribute(root, "data-step"))
    seats = page.eval_on_selector_all(
        f"{root} .seat", "els => els.map(e => Array.from(e.querySelectorAll('.card')).map("
        "c => [c.dataset.card, c.dataset.up === '1']))")
    stacks = page.eval_on_selector_all(f"{root} .seat .stack", "els => els.map(e => Number(e.textContent))")
    return step, [[(c, up) for c, up in seat] for seat in seats], stacks


def _step_through(page: Any, hand: dict[str, Any], root: str = ".replayer") -> None:
    """Click "forward" through the hand; at every step the drawn cards equal the PHH log's."""
    page.click(f"{root} button.first")
    seen: list[int] = []
    lines = len(hand["actions"])
    while True:
        step, seats, _ = _read_table(page, root)
        seen.append(step)
        if step <= lines:
            assert seats == [list(s) for s in dealt_cards(hand, step)], (hand["_hand_id"], step)
        if step > lines:
            break
        page.click(f"{root} button.step")
    assert seen == list(range(lines + 2)), seen  # a0 .. every line .. the result


def _check_awards(page: Any, hand: dict[str, Any]) -> list[dict[str, str]]:
    """At the end: the log's finishing stacks, and winners sharing exactly the pots drawn."""
    _, _, stacks = _read_table(page, ".replayer")
    assert stacks == hand["finishing_stacks"]
    winners = page.eval_on_selector_all(
        ".replayer .award .winner", "els => els.map(e => Number(e.dataset.chips))")
    pots = page.eval_on_selector_all(".replayer .pot", "els => els.map(e => Number(e.dataset.amount))")
    assert sum(winners) == sum(pots) > 0
    net = page.locator(".replayer .net").inner_text()
    for name, start, end in zip(hand["players"], hand["starting_stacks"], hand["finishing_stacks"],
                                strict=True):
        assert f"{name} {'+' if end > start else ''}{end - start}" in net
    won_by = page.eval_on_selector_all(".replayer .award .winner",
                                       "els => els.map(e => Number(e.dataset.seat))")
    gained = {k for k, (a, b) in enumerate(zip(hand["starting_stacks"], hand["finishing_stacks"],
                                                strict=True)) if b > a}
    assert gained <= set(won_by)  # whoever ended up is among the winners drawn
    return page.eval_on_selector_all(".replayer .award", "els => els.map(e => ({share: e.dataset.share, "
                                     "text: e.textContent}))")


def _hand_json(live_league: LiveLeague, hand_id: str) -> dict[str, Any]:
    status, body = _get(f"{live_league.web_url}api/hand/{hand_id}.json")
    assert status == 200
    result: dict[str, Any] = json.loads(body)
    return result


def test_stud_hand_stepped_through_shows_down_and_up_cards_of_the_log(live_league: LiveLeague,
                                                                      browser: Any) -> None:
    hands = live_league.hands()
    stud = [h for h in hands.values() if h["variant"] == "F7S" and len(shown_seats(h)) >= 2]
    assert stud, "no seven card stud showdown in the league"
    hand = stud[0]
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{live_league.web_url}hand/{hand['_hand_id']}")
    _step_through(page, hand)
    _, seats, _ = _read_table(page, ".replayer")
    assert any(not up for seat in seats for _, up in seat) and any(up for seat in seats for _, up in seat)
    assert page.locator(".replayer .card.down").count() > 0 and page.locator(".replayer .card.up").count() > 0
    _check_awards(page, hand)
    names = page.locator(".replayer .shown-hand .hand-name").all_inner_texts()
    assert len(names) >= 2 and all(re.search(r"[a-z]", n) for n in names)
    page.screenshot(path=str(ARTIFACTS / "stud-hand.png"), full_page=True)
    page.close()


def test_omaha_hi_lo_split_hand_shows_both_halves_and_the_winners(live_league: LiveLeague,
                                                                  browser: Any) -> None:
    hands = live_league.hands()
    split = None
    for hand_id, hand in hands.items():
        if hand["variant"] == "FO/8" and len(shown_seats(hand)) >= 2:
            data = _hand_json(live_league, hand_id)
            if {a["share"] for a in data["awards"]} >= {"high", "low"}:
                split = hand
                break
    assert split is not None, "no Omaha hi-lo split pot in the league"
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{live_league.web_url}hand/{split['_hand_id']}")
    _step_through(page, split)
    awards = _check_awards(page, split)
    assert {a["share"] for a in awards} >= {"high", "low"}
    lows = page.locator(".replayer .shown-hand .hand-name.low").all_inner_texts()
    assert any(re.search(r"low: [2-8A](-[2-8A]){4}", t) for t in lows), lows
    page.screenshot(path=str(ARTIFACTS / "omaha-split.png"), full_page=True)
    page.close()


def test_deep_link_opens_the_named_action(live_league: LiveLeague, browser: Any) -> None:
    hands = live_league.hands()
    hand = next(h for h in hands.values() if len(h["actions"]) >= 14)
    page = browser.new_page()
    page.goto(f"{live_league.web_url}hand/{hand['_hand_id']}#a12")
    page.wait_for_selector("body[data-ready='1']")
    assert page.get_attribute(".replayer", "data-step") == "12"
    current = page.locator(".replayer .log li.current")
    assert current.get_attribute("id") == "a12"
    line = hand["actions"][11].split()
    if line[0] != "d":
        actor = hand["players"][int(line[0][1:]) - 1]
        assert current.inner_text().startswith(actor)
    page.click(".replayer button.back")
    assert page.get_attribute(".replayer", "data-step") == "11"
    assert page.evaluate("location.hash") == "#a11"
    page.close()


def test_duplicate_copies_side_by_side_and_links_to_biggest_pots(live_league: LiveLeague,
                                                                 browser: Any) -> None:
    hands = live_league.hands()
    deal_id = next(iter(hands.values()))["_deal_id"]
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(f"{live_league.web_url}deal?id={deal_id}")
    assert page.locator(".replayer").count() == 2
    boards = [page.get_attribute(f".replayer[data-index='{k}']", "data-hand") for k in (0, 1)]
    assert {hands[h]["_deal_id"] for h in boards if h} == {deal_id}
    page.screenshot(path=str(ARTIFACTS / "duplicate.png"), full_page=True)
    page.goto(f"{live_league.web_url}bot?name=rules")
    links = page.locator("tr.bigpot a")
    assert links.count() >= 1
    links.first.click()
    page.wait_for_selector("body[data-ready='1']")
    assert "rules" in page.locator(".replayer .seat .name").all_inner_texts()
    page.close()


def test_autoplay_runs_to_the_end(live_league: LiveLeague, browser: Any) -> None:
    hand = min(live_league.hands().values(), key=lambda h: len(h["actions"]))
    page = browser.new_page()
    page.goto(f"{live_league.web_url}hand/{hand['_hand_id']}")
    page.click(".replayer button.play")
    last = str(len(hand["actions"]) + 1)
    page.wait_for_selector(f".replayer[data-step='{last}']", timeout=60_000)
    page.close()


# --------------------------------------------------------------------------- security


@pytest.mark.parametrize("path", [
    "download/..%2F..%2Fleague.toml/phhs", "download/..%2Fleague/phhs", "hand/..%2F..%2Fleague.toml",
    "api/hand/..%2Fleague.json", "match/..%2F..", "files/..%2Fleague.toml", "files/league.sqlite",
    "static/..%2F..%2Fleague.toml", "static/../../league.toml", "match/%2e%2e", "hand/%2e%2e%2fx-h1",
    "download/r1-t1-c1/..%2F..%2Fleague.toml", "deal?id=../../league.toml/deal-1",
])
def test_paths_never_leave_the_log_directory(live_league: LiveLeague, path: str) -> None:
    status, body = _get(live_league.web_url + path)
    assert status == 404, (path, status)
    assert "token-web" not in body and "[[bots]]" not in body


def test_xss_league_name_is_escaped_on_every_page(live_league: LiveLeague, browser: Any) -> None:
    """The league file's name is `<img src=x onerror=alert(1)>`: shown as text, never run.
    (Bot names cannot carry markup: the league file refuses them; tests/web/test_site.py
    serves a hand log whose player names and ids are hostile.)"""
    hand_id = next(iter(live_league.hands()))
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for path in ["", "leaderboard", "match/r1-t1-c1", f"hand/{hand_id}", "bot?name=rules", "live",
                 "no-such-page"]:
        _, body = _get(live_league.web_url + path)
        assert "<img" not in body, path
        page.goto(live_league.web_url + path)
        page.wait_for_load_state("load")
        assert page.locator("img").count() == 0, path
        assert XSS_NAME in page.locator("header").inner_text(), path
    assert dialogs == []
    page.close()


def test_finished_match_downloads_and_replay_instructions(live_league: LiveLeague) -> None:
    status, body = _get(live_league.web_url + "download/r1-t1-c1/phhs")
    assert status == 200 and body == (live_league.log_dir / "r1-t1-c1.phhs").read_text()
    status, body = _get(live_league.web_url + "download/r1-t1-c1/result")
    assert status == 200 and "match_seed" in body
    # The event log is stored as the wire's records and downloaded as JSON lines.
    status, body = _get(live_league.web_url + "download/r1-t1-c1/events")
    logged = list(read_events(live_league.log_dir / "r1-t1-c1.events.pb"))
    assert status == 200 and [json.loads(line) for line in body.splitlines()] == logged
    status, body = _get(live_league.web_url)
    assert "arena replay" in body and 'href="/download/r1-t1-c1/phhs"' in body
    assert ROOT.exists()
