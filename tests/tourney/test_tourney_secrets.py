"""Tournaments keep their secrets as leagues do (issue 39 item 6): the log folder is owner-only
(0700) and the store and every log owner-only (0600): before, 0755 and 0644 under umask 022,
so any local user read every hole card. Their web tables number their hands."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.tourney.config import load_tournament
from arena.web.tournament import TournamentApp, TournamentSite
from tests.tourney.test_tourney_e2e import TournamentProcess, write_tournament

pytestmark = pytest.mark.timeout(240)

NAMES = ["s0", "s1", "s2"]
BODY = """
name = "secrets"
format = "freezeout"
seed = 4
seats_per_table = 3
starting_stack = 60
start_timeout_seconds = 30
[levels]
small_blind = 5
big_blind = 10
hands = 2
[rules]
games = ["FT"]
decision_seconds = 5.0
"""


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A finished three-bot freezeout run under umask 022, its file's folder."""
    tmp = tmp_path_factory.mktemp("tourney")
    path = write_tournament(tmp, NAMES, body=BODY)
    old = os.umask(0o022)
    try:
        proc = TournamentProcess(path, NAMES)
    finally:
        os.umask(old)
    code, output = proc.wait()
    assert code == 0, output
    yield tmp


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_log_folder_store_and_logs_are_owner_only(finished: Path) -> None:
    logs = finished / "logs"
    assert _mode(logs) == 0o700
    files = sorted(p for p in logs.iterdir() if p.is_file())
    assert {p.suffix for p in files} >= {".phhs", ".jsonl", ".json", ".csv", ".txt"}, files
    assert {p.name: _mode(p) for p in files} == {p.name: 0o600 for p in files}
    stores = sorted(finished.glob("tournament.sqlite*"))
    assert stores and {p.name: _mode(p) for p in stores} == {p.name: 0o600 for p in stores}


def test_the_web_table_pages_number_their_hands(finished: Path) -> None:
    config = load_tournament(finished / "tournament.toml")
    client = TestClient(TournamentApp(TournamentSite(config)).starlette())
    tables = TournamentSite(config).tables()
    assert tables
    for table in tables:
        page = client.get(f"/table/{table.table_id}").text
        numbers = [int(cell.split("<td>", 1)[1].split("</td>", 1)[0])
                   for cell in page.split('<tr class="hand">')[1:]]
        assert numbers == list(range(1, table.hands_logged + 1)), (table.table_id, numbers)
        # One column per bot: every row has the header's cells, each bot's net in its column
        # (before, each row listed "name net" pairs in that hand's seat order).
        body = page[page.index('<table class="hands">'):page.index("</table>")]
        header = body.split("</thead>")[0]
        columns = header.count("<th>") + header.count("<th ")
        rows = body.split('<tr class="hand">')[1:]
        assert rows and all(row.count("<td") == columns for row in rows), body
        for name in table.players:
            assert f'<th class="bot">{name}</th>' in header
