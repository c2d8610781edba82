"""Organizers see every bot's faults (issue 39 item 3): a bot whose SDK answered for its failing
code, whose reply was refused and which timed out shows all of it in the leaderboard (table,
JSON, CSV, web) and in /metrics; the faults table counts matches (each duplicate copy), not
deal sets."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from arena.league.commands import show_leaderboard
from arena.league.config import load_league
from arena.v1 import arena_pb2 as pb
from arena.web.app import WebApp
from arena.web.site import LeagueSite
from tests.league.test_league_e2e import ROOT, phh_tables
from tests.server.harness import RawBot
from tests.server.procs import env

pytestmark = pytest.mark.timeout(180)

LEAGUE = """\
name = "faults"
format = "round_robin"
seats_per_table = 2
hands_per_match = 12
duplicate = true
tables_at_once = 2
seed = 5
listen = "127.0.0.1:0"
store = "league.sqlite"
log_dir = "logs"
start_timeout_seconds = 20
metrics_port = 0
[rules]
games = ["FT"]
decision_seconds = 3.0  # room for a loaded machine: only the unanswered decision times out
time_bank_seconds = 0.0
[[bots]]
name = "faulty"
token = "token-faulty-0001"
[[bots]]
name = "steady"
token = "token-steady-0001"
"""


def _scrape(url: str, sample_name: str, bot: str) -> float:
    text = urllib.request.urlopen(url, timeout=5).read().decode()
    return sum(s.value for family in text_string_to_metric_families(text) for s in family.samples
               if s.name == sample_name and s.labels.get("bot") == bot)


def _check_or_fold(request: pb.DecisionRequest) -> int:
    kinds = {a.kind for a in request.legal_actions}
    return pb.ACTION_KIND_CHECK if pb.ACTION_KIND_CHECK in kinds else pb.ACTION_KIND_FOLD


async def _faulty_bot(address: str, metrics_url: str) -> dict[str, float]:
    """Every fourth decision its "code fails" (the SDK's fallback answers); its second reply is
    refused (then its SDK's fallback answers), its third it never answers. Before its 30th
    reply it reads /metrics: what the fallbacks of the committed hands so far show."""
    bot = await RawBot(address, "token-faulty-0001", name="faulty").connect()
    counts = {"fallbacks": 0.0, "scraped": -1.0, "sent_before_scrape": 0.0}
    decisions = 0
    try:
        while True:
            message = await bot.recv(timeout=60)
            if message is None:
                break
            if message.WhichOneof("payload") != "decision_request":
                continue
            request = message.decision_request
            decisions += 1
            if decisions == 3:
                continue  # never answered: the dealer acts for it when the clock runs out
            if decisions == 30:
                counts["sent_before_scrape"] = counts["fallbacks"]
                counts["scraped"] = await asyncio.to_thread(
                    _scrape, metrics_url, "arena_sdk_fallbacks_total", "faulty")
            reply = pb.ActionReply(decision_id=request.decision_id, seat=request.your_seat)
            if decisions == 2:
                reply.action.CopyFrom(pb.Action(kind=pb.ACTION_KIND_RAISE, raise_to_chips=1))
                await bot.send(pb.BotMessage(action_reply=reply))
                await bot.reject()
                reply.fallback = pb.FALLBACK_AFTER_REJECTION
                reply.action.CopyFrom(pb.Action(kind=_check_or_fold(request)))
                counts["fallbacks"] += 1
            elif decisions % 4 == 1:
                reply.fallback = pb.FALLBACK_AFTER_EXCEPTION
                reply.action.CopyFrom(pb.Action(kind=_check_or_fold(request)))
                counts["fallbacks"] += 1
            else:
                kinds = {a.kind for a in request.legal_actions}
                reply.action.CopyFrom(pb.Action(kind=pb.ACTION_KIND_CALL if pb.ACTION_KIND_CALL in kinds
                                                else pb.ACTION_KIND_CHECK))
            await bot.send(pb.BotMessage(action_reply=reply))
    finally:
        await bot.close()
    return counts


def _timeouts_logged(log_dir: Path, bot: str) -> int:
    """The decisions of ``bot`` that its hand logs mark as timed out (``_fault_lines``)."""
    count = 0
    for hand in phh_tables(log_dir):
        players = list(hand["players"])  # type: ignore[call-overload]
        actions = list(hand["actions"])  # type: ignore[call-overload]
        for line, why in hand.get("_fault_lines", []):  # type: ignore[attr-defined]
            seat = re.match(r"p(\d+) ", actions[line - 1])
            count += why == "timeout" and seat is not None and players[int(seat.group(1)) - 1] == bot
    return count


def test_sdk_fallbacks_timeouts_and_refusals_reach_every_leaderboard_and_metrics(
        tmp_path: Path) -> None:
    league = tmp_path / "league.toml"
    league.write_text(LEAGUE)
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", str(league)],
                              cwd=tmp_path, env=env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    steady = None
    try:
        assert server.stdout is not None
        address = metrics_url = None
        for line in server.stdout:
            if m := re.search(r"metrics: (\S+)", line):
                metrics_url = m.group(1)
            if m := re.search(r"listening on (\S+);", line):
                address = m.group(1)
                break
        assert address is not None and metrics_url is not None
        steady = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "bot", "call", "--server", address,
             "--token", "token-steady-0001", "--name", "steady", "--reconnect-seconds", "2"],
            cwd=ROOT, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        counts = asyncio.run(_faulty_bot(address, metrics_url))
        out, err = server.communicate(timeout=120)
        assert server.returncode == 0, out + err
    finally:
        for proc in (server, steady):
            if proc is not None and proc.poll() is None:
                proc.kill()
    fallbacks = int(counts["fallbacks"])
    assert fallbacks >= 8
    # /metrics while the league ran: the fallbacks of the hands committed so far, by name.
    assert 1 <= counts["scraped"] <= counts["sent_before_scrape"]

    # CSV, per bot and stored match: the duplicate deal set's two copies are two matches.
    text = io.StringIO()
    assert show_leaderboard(str(league), fmt="csv", table="faults", out=text) == 0
    rows = {r["bot"]: r for r in csv.DictReader(io.StringIO(text.getvalue()))}
    assert rows["faulty"]["matches"] == "2" and rows["steady"]["matches"] == "2"
    assert rows["faulty"]["hands"] == "24"
    assert int(rows["faulty"]["sdk_fallbacks"]) == fallbacks
    # Its third decision, never answered, timed out. (A reply of a loaded machine may come late
    # too: the leaderboard counts every timeout its hand logs mark, and only those.)
    timeouts = _timeouts_logged(tmp_path / "logs", "faulty")
    assert timeouts >= 1
    assert rows["faulty"]["timeouts"] == str(timeouts)
    assert int(rows["faulty"]["rejected_replies"]) >= 1
    assert (rows["steady"]["sdk_fallbacks"], rows["steady"]["timeouts"]) == ("0", "0")
    # JSON: the same rows.
    text = io.StringIO()
    assert show_leaderboard(str(league), fmt="json", out=text) == 0
    faults = {f["bot"]: f for f in json.loads(text.getvalue())["faults"]}
    assert faults["faulty"]["sdk_fallbacks"] == fallbacks and faults["faulty"]["matches"] == 2
    # The table: per bot, matches counted as played.
    text = io.StringIO()
    assert show_leaderboard(str(league), fmt="table", out=text) == 0
    lines = text.getvalue().splitlines()
    header = next(k for k, line in enumerate(lines) if line.split()[:2] == ["bot", "matches"])
    assert lines[header].split() == ["bot", "matches", "hands", "timeouts", "absent", "rejected",
                                     "fallbacks", "disconnects"]
    faulty = next(line.split() for line in lines[header:] if line.split()[:1] == ["faulty"])
    assert faulty[1:3] == ["2", "24"] and faulty[3] == str(timeouts) and faulty[6] == str(fallbacks)
    # The web leaderboard and the bot's page.
    client = TestClient(WebApp(LeagueSite(load_league(league))).starlette())
    page = client.get("/leaderboard").text
    row = page[page.index('data-bot="faulty"'):]
    row = row[:row.index("</tr>")]
    assert f'<td class="fallbacks">{fallbacks}</td>' in row
    assert f'<td class="timeouts">{timeouts}</td>' in row
    assert f"{fallbacks} replies sent by its SDK's fallback" in client.get("/bot?name=faulty").text
