"""`arena replay` never passes a damaged log (issue 39 item 4): a log with fewer hands than its
results file counts fails naming the missing hands; a file cut mid-hand or with garbage
appended has every intact hand checked and the broken one named with its line. Before, the
first passed, and the others failed as "not valid TOML" with no hand checked."""

from __future__ import annotations

import asyncio
import io
import re
import shutil
from pathlib import Path

import pytest

from arena.engine.rules import Rules
from arena.storage.replay import replay_paths
from arena.v1 import arena_pb2 as pb
from tests.server.harness import RawBot, make_config, running, token_for

pytestmark = pytest.mark.timeout(90)

HANDS = 6


async def _call_or_check(bot: RawBot) -> None:
    while (message := await bot.recv(20.0)) is not None:
        if message.WhichOneof("payload") != "decision_request":
            continue
        request = message.decision_request
        kinds = {a.kind for a in request.legal_actions}
        kind = next(k for k in (pb.ACTION_KIND_CHECK, pb.ACTION_KIND_CALL, pb.ACTION_KIND_BRING_IN)
                    if k in kinds)
        await bot.reply(request.decision_id, request.your_seat, kind)


@pytest.fixture(scope="module")
def match_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished match's log directory: ``match.phhs`` of 6 hands and its results file."""
    tmp = tmp_path_factory.mktemp("match")
    config = make_config(tmp, ["alice", "bob"], hands=HANDS, rules={"games": ["FT", "FR"]})

    async def scenario() -> None:
        async with running(config) as (server, address):
            bots = [await RawBot(address, token_for(n), name=n).connect() for n in ("alice", "bob")]
            await asyncio.gather(*(_call_or_check(b) for b in bots))
            for bot in bots:
                await bot.close()
            await server.run_until_done()

    asyncio.run(scenario())
    return tmp / "logs"


@pytest.fixture
def logs(match_logs: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "logs"
    shutil.copytree(match_logs, copy)
    return copy


def _replay(path: Path) -> tuple[int, str]:
    out = io.StringIO()
    code = replay_paths([str(path)], rules=Rules(), show=False, hand_id=None, out=out)
    return code, out.getvalue()


def _tables(text: str) -> list[tuple[int, int]]:
    """Each hand's (first, last) 0-based line in the file: its [N] header to before the next."""
    lines = text.split("\n")
    starts = [k for k, line in enumerate(lines) if re.fullmatch(r"\[\d+\]", line)]
    return [(s, (starts[k + 1] if k + 1 < len(starts) else len(lines)) - 1)
            for k, s in enumerate(starts)]


def test_the_intact_log_replays(logs: Path) -> None:
    code, out = _replay(logs / "match.phhs")
    assert code == 0 and f"{HANDS} of {HANDS} hands replayed" in out, out


def test_a_log_with_fewer_hands_than_its_results_file_fails_naming_them(logs: Path) -> None:
    path = logs / "match.phhs"
    text = path.read_text()
    lines = text.split("\n")
    tables = _tables(text)
    keep = [k for k in range(HANDS) if k not in (1, 4, 5)]  # hands 2, 5 and 6 lost
    path.write_text("\n".join(line for k in keep for line in lines[tables[k][0]:tables[k][1] + 1]))
    code, out = _replay(path)
    assert code == 1, out
    assert f"the results file counts {HANDS} played hand(s), the log holds 3: missing hand(s) 2, 5-6" \
        in out, out
    assert out.count("ok   ") == 3, out


def test_a_log_cut_mid_hand_checks_every_intact_hand_and_names_the_broken_line(logs: Path) -> None:
    path = logs / "match.phhs"
    text = path.read_text()
    lines = text.split("\n")
    first, _last = _tables(text)[3]  # hand [4]
    actions = next(k for k in range(first, len(lines)) if lines[k].startswith("actions = "))
    cut = "\n".join(lines[:actions]) + "\n" + lines[actions][:len(lines[actions]) // 2]
    path.write_text(cut)
    code, out = _replay(path)
    assert code == 1, out
    assert out.count("ok   ") == 3, out  # hands 1 to 3, intact, checked
    assert f"FAIL {path}[4]: line {actions + 1}: not a hand history from here on" in out, out
    assert "missing hand(s) 4-6" in out, out  # the results file counts 6


def test_a_log_cut_at_a_line_end_names_the_hand_cut_short(logs: Path) -> None:
    path = logs / "match.phhs"
    text = path.read_text()
    lines = text.split("\n")
    _first, last = _tables(text)[-1]
    finishing = next(k for k in range(last, 0, -1) if lines[k].startswith("finishing_stacks = "))
    path.write_text("\n".join(lines[:finishing]) + "\n")
    code, out = _replay(path)
    assert code == 1, out
    assert out.count("ok   ") == HANDS - 1, out
    assert f"FAIL {path}[{HANDS}]: the hand is cut short (no finishing_stacks, _rules" in out, out


@pytest.mark.parametrize("garbage", [b"zz this is not TOML\n", b"\x00\xff\xfe binary tail",
                                     b"actions = 'x'\n"])
def test_garbage_appended_checks_every_hand_and_names_the_line(logs: Path, garbage: bytes) -> None:
    path = logs / "match.phhs"
    raw = path.read_bytes()
    line = raw.count(b"\n") + 1
    path.write_bytes(raw + garbage)
    code, out = _replay(path)
    assert code == 1, out
    assert out.count("ok   ") == HANDS, out
    assert re.search(rf"FAIL {re.escape(str(path))}(\[{HANDS}\])?: line {line}: ", out), out


def test_a_huge_count_in_the_results_file_is_named_without_counting_to_it() -> None:
    """The results file is untrusted: the missing hands are the gaps between the hands present,
    found without walking every number up to the count it claims."""
    from arena.engine.phh import PhhHand
    from arena.storage.logdamage import missing_hands

    hands = [PhhHand("f[1]", {"_hand": 1}), PhhHand("f[2]", {"_hand": 3})]
    assert missing_hands(hands, [], {"hands_played": 10**15}) == (
        "the results file counts 1000000000000000 played hand(s), the log holds 2: missing "
        "hand(s) 2, 4-1000000000000000")
