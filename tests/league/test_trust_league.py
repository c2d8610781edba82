"""Issue 7 over a real league (docs/house-rules.md §1, §9): a spy bot that re-deals from every value it is
shown predicts no card, over duplicate copies and an interrupted-then-resumed match; and while
a hand is paused mid-street no file of the league holds any of that hand's hidden cards."""

from __future__ import annotations

import _random
import asyncio
import contextlib
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from arena_bot import Action, SeatView, play
from google.protobuf.json_format import MessageToDict

from arena.engine.cards import Card, Deck, derive_seed, format_card, parse_card
from arena.engine.games import variant_for
from arena.engine.seeds import derive_secret
from arena.engine.state import HandState
from arena.v1 import arena_pb2 as pb
from tests.league.seed_search import first_draws
from tests.league.test_league_e2e import ROOT, write_league
from tests.server.procs import env

pytestmark = pytest.mark.timeout(240)

Strategy = Callable[[SeatView], Awaitable[Action]]


# ------------------------------------------------------------------ a league and its bots

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _league(league: Path, run: int, extra_env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    with (league.parent / f"league-run-{run}.out").open("w") as out:
        return subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", str(league)],
                                cwd=league.parent, env={**env(), **(extra_env or {})}, stdout=out,
                                stderr=subprocess.STDOUT, text=True)


def _call_bot(name: str, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "arena.cli", "bot", "call", "--server",
                             f"127.0.0.1:{port}", "--token", f"token-{name}-0001", "--name", name,
                             "--connect-seconds", "60"],
                            cwd=ROOT, env=env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


class BotThread(threading.Thread):
    """An SDK bot in its own thread and event loop (it reconnects across a league restart)."""

    def __init__(self, name: str, port: int, strategy: Strategy,
                 on_message: Callable[[pb.DealerMessage], None]) -> None:
        super().__init__(daemon=True)
        self.bot_name, self.port, self.strategy, self.on_message = name, port, strategy, on_message
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            asyncio.run(play(self.strategy, server=f"127.0.0.1:{self.port}",
                             token=f"token-{self.bot_name}-0001", name=self.bot_name,
                             connect_seconds=60, max_backoff_seconds=0.2,
                             on_message=self.on_message))
        except BaseException as exc:  # reported by the test
            self.error = exc


def _wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


# ------------------------------------------------------------------ the spy

_DIGITS = re.compile(rb"\d{1,400}")
_HEX = re.compile(rb"[0-9a-fA-F]{16,128}")
# What a bot could be shown or read: results and the published commitment and secret (logs,
# store and secret file are owner-only; a bot runs under another account).
_PUBLISHED = ("*.result.json", "league-commitment.json", "league-secret.json", "leaderboard*")


def _numbers(text: bytes) -> Iterator[int]:
    """Every integer a text holds, as decimal digits or as hex (a commitment, a digest)."""
    for match in _DIGITS.finditer(text):
        yield int(match.group())
    for match in _HEX.finditer(text):
        yield int(match.group(), 16)


@dataclass
class SpyHand:
    match_id: str
    number: int
    first_seen: float
    hole: tuple[Card, ...] = ()
    board: tuple[Card, ...] = ()


@dataclass
class Spy:
    """Keeps every value shown to it, with when it first saw it, and every hand's hole cards."""

    log_dir: Path
    known: dict[int, float] = field(default_factory=dict)
    hands: dict[str, SpyHand] = field(default_factory=dict)
    ended: list[tuple[float, str, bool, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def learn(self, text: bytes, now: float) -> None:
        for value in _numbers(text):
            self.known.setdefault(value, now)

    def read_files(self, now: float) -> None:
        for pattern in _PUBLISHED:
            for path in self.log_dir.glob(pattern):
                with contextlib.suppress(OSError):
                    self.learn(path.read_bytes(), now)

    def on_message(self, message: pb.DealerMessage) -> None:
        now = time.monotonic()
        with self.lock:
            if message.WhichOneof("payload") == "event":
                event = message.event
                if event.hand_id and event.hand_id not in self.hands:
                    self.read_files(now)  # everything readable before the hand is dealt
                    number = int(event.hand_id.rsplit("-h", 1)[1])
                    self.hands[event.hand_id] = SpyHand(event.match_id, number, now)
                if event.WhichOneof("payload") == "board_dealt":
                    self.hands[event.hand_id].board = tuple(
                        parse_card(c) for c in event.board_dealt.board_cards)
                if event.WhichOneof("payload") == "match_ended":
                    ended = event.match_ended
                    self.ended.append((now, event.match_id, ended.aborted, ended.match_seed))
                    self.read_files(now)
            elif message.WhichOneof("payload") == "decision_request":
                request = message.decision_request
                hand = self.hands.setdefault(request.hand_id, SpyHand(
                    request.match_id, request.hand_number, now))
                if not hand.hole:
                    hand.hole = tuple(parse_card(c) for c in request.hole_cards)
            self.learn(json.dumps(MessageToDict(message)).encode(), now)

    def predicted(self, values: dict[int, float]) -> list[str]:
        """The hands whose cards (the spy's hole cards and the board: at least five, 2**-38
        to match by chance) some value known before the hand (or at its start) re-deals as
        a hand, match, league or serve seed."""
        out = []
        for hand_id, hand in sorted(self.hands.items()):
            if len(hand.hole) + len(hand.board) < 5:
                continue
            deal_set = re.sub(r"-c\d+$", "", hand.match_id)
            if any(_deals(seed, hand.hole, hand.board)
                   for value, when in values.items() if when <= hand.first_seen
                   for seed in _candidate_seeds(value, deal_set, hand.match_id, hand.number)):
                out.append(hand_id)
        return out


def _candidate_seeds(value: int, deal_set: str, match_id: str, number: int) -> Iterator[int]:
    yield value  # the hand's own seed
    yield derive_seed(value, "hand", number - 1)  # the match's seed
    yield derive_seed(derive_secret(value, "deal-set", deal_set), "hand", number - 1)  # league's
    yield derive_seed(derive_secret(value, "table", match_id), "hand", number - 1)  # arena serve's


_RNG = _random.Random()


def _deals(seed: int, hole: tuple[Card, ...], board: tuple[Card, ...]) -> bool:
    """Would a heads-up hold'em hand from ``seed`` deal a seat exactly ``hole`` and this board?"""
    _RNG.seed(seed)
    if not set(hole) <= set(first_draws(_RNG, 4)):  # the hole cards are the first draws
        return False
    state = HandState(variant_for("FT"), [1000, 1000], seed=seed)
    while not state.is_over:
        state.check_or_call()
    return tuple(state.board[:len(board)]) == board and any(tuple(c) == hole for c in state.cards)


async def _slow_calls(view: SeatView) -> Action:
    await asyncio.sleep(0.03)  # a few hands per second: the interruption lands mid-match
    return view.check_or_call()


def test_a_spy_predicts_no_card_over_duplicate_copies_and_a_resumed_match(tmp_path: Path) -> None:
    """Before: the first copy's MatchEnded carried the deal set's seed while the second copy
    was still to be played, and an interrupted match revealed its seed and then resumed with
    it. The spy tries every value it was shown or could read as a hand, match, league or
    serve seed; the planted leaks at the end show that it would have found those."""
    port = _free_port()
    league = write_league(tmp_path, [("spy", ""), ("alpha", "call")], hands_per_match=8,
                          tables_at_once=1, listen=f"127.0.0.1:{port}", start_timeout_seconds=60,
                          rules='games = ["FT"]')
    league.write_text("\n".join(line for line in league.read_text().splitlines()
                                if not line.startswith("seed =")) + "\n")
    logs = tmp_path / "logs"
    spy = Spy(logs)
    first = _league(league, 1)
    alpha = _call_bot("alpha", port)
    bot = BotThread("spy", port, _slow_calls, spy.on_message)
    bot.start()
    try:
        def third_hand_dealt() -> bool:
            with spy.lock:
                return any(h.match_id == "r1-t1-c1" and h.number >= 3 and h.hole
                           for h in spy.hands.values())

        _wait_for(third_hand_dealt, 90, "the spy's third hand")
        first.send_signal(signal.SIGINT)  # the organizer stops the league mid-match
        assert first.wait(60) == 3
        stopped = time.monotonic()
        second = _league(league, 2)
        assert second.wait(180) == 0, (tmp_path / "league-run-2.out").read_text()
        bot.join(60)
        assert not bot.is_alive() and bot.error is None, bot.error
    finally:
        for proc in (first, alpha):
            if proc.poll() is None:
                proc.kill()
    copy1 = [h for h in spy.hands.values() if h.match_id == "r1-t1-c1" and len(h.board) == 5]
    copy2 = [h for h in spy.hands.values() if h.match_id == "r1-t1-c2" and len(h.board) == 5]
    resumed = [h for h in copy1 if h.first_seen > stopped]
    assert len(copy2) == 8 and resumed and len(copy1) > len(resumed)
    aborted = [when for when, match, was_aborted, _ in spy.ended if was_aborted]
    finished = {match: when for when, match, was_aborted, _ in spy.ended if not was_aborted}
    assert all(seed == "" for *_, seed in spy.ended)
    assert spy.predicted(spy.known) == []  # nothing shown to the spy predicts a card
    # Planted leaks, as the code was before: the deal set's seed in the first copy's MatchEnded,
    # or in the MatchEnded of the interrupted match. The spy would have predicted those hands.
    secret = int(json.loads((logs / "league-secret.json").read_text())["secret"])
    seed = derive_secret(secret, "deal-set", "r1-t1")
    revealed_by_copy1 = spy.predicted({seed: finished["r1-t1-c1"]})
    assert sorted(revealed_by_copy1) == sorted(f"r1-t1-c2-h{h.number}" for h in copy2)
    revealed_by_abort = spy.predicted({seed: aborted[0] if aborted else stopped})
    assert {f"r1-t1-c1-h{h.number}" for h in resumed} <= set(revealed_by_abort)


# ------------------------------------------------------------------ the paused hand

_CARD_TOKEN = "[2-9TJQKA][cdhs]"


def _hand_cards(match_seed: int, index: int) -> tuple[set[Card], set[Card], set[Card]]:
    """A heads-up hold'em hand played to the river: (the first 12 cards of its deck, its hole
    cards, the cards hidden on the flop: hole cards, burns, turn and river)."""
    state = HandState(variant_for("FT"), [1000, 1000], seed=derive_seed(match_seed, "hand", index))
    while not state.is_over:
        state.check_or_call()
    dealt = set(Deck(derive_seed(match_seed, "hand", index)).draw_many(12))
    hole = {c for cards in state.cards for c in cards}
    hidden = hole | set(state.board[3:]) | set(getattr(state.source, "burned", []))
    return dealt, hole, hidden


def _seed_with_distinct_cards(deal_set: str, paused: int) -> tuple[int, set[Card], set[Card]]:
    """A configured league seed whose hand ``paused`` (from 0) hides no card that the earlier
    hands or the button draw dealt: then any of its hidden cards in a file is a leak."""
    for seed in range(1, 100_000):
        match_seed = derive_secret(seed, "deal-set", deal_set)
        earlier = set(Deck(derive_seed(match_seed, "button")).draw_many(2))
        for index in range(paused):
            earlier |= _hand_cards(match_seed, index)[0]
        _, hole, hidden = _hand_cards(match_seed, paused)
        if not hidden & earlier:
            return seed, hole, hidden
    raise AssertionError("no seed found")


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.startswith("league-run-")}


def _cards_in(files: dict[str, bytes], cards: Iterable[Card]) -> list[tuple[str, str]]:
    """(file, card) for every card written as text anywhere: alone or among other cards
    ("As", "AsKd", "As Kd") between the delimiters text puts around them (space, quote,
    bracket, comma, colon, equals sign, start or end of the file). Not inside another word or a
    hex digest, nor two bytes of binary data: SQLite stores a REAL between 53.1 and 53.2 as the
    bytes 0x40 0x4A 0x63 ..., "@Jc" (most likely what once found "Jc" in the store's WAL)."""
    found = []
    for card in cards:
        name = format_card(card)
        token = re.compile(rf"(?:^|(?<=[\s\"'\[,:=(]))(?:{_CARD_TOKEN})*{name}(?:{_CARD_TOKEN})*"
                           rf"(?=[\s\"'\],:)]|$)".encode())
        found += [(path, name) for path, data in files.items() if token.search(data)]
        # The event log holds the wire's own bytes: a card is a protobuf string, its length (2)
        # before it (searched there only: in SQLite's pages those bytes can mean anything).
        found += [(path, name) for path, data in files.items()
                  if path.endswith(".events.pb") and b"\x02" + name.encode() in data]
    return found


_PLANT_EVENT_LOG = """\
from arena.storage.eventlog import EventLog
_sent = EventLog.sent
def _sent_and_written(self, seat, notice):
    _sent(self, seat, notice)
    self.flush()
EventLog.sent = _sent_and_written
"""


@pytest.mark.parametrize("planted", [False, True], ids=["as-shipped", "planted-leak"])
def test_no_file_holds_a_hidden_card_while_a_hand_is_paused(tmp_path: Path,
                                                            planted: bool) -> None:
    """Before: the event log (JSONL then) wrote each line as it came, so while a hand was being
    played it held every seat's hole cards. A bot stops answering on the flop of hand 3; every
    file under the league's directory (PHH, event log, results, SQLite store, its WAL and SHM,
    secret) is read and searched for every hidden card of that hand. ``planted-leak`` runs
    the league with its event log written line by line again, and must be caught."""
    port = _free_port()
    seed, hole, hidden = _seed_with_distinct_cards("r1-t1", 2)
    league = write_league(tmp_path, [("pauser", ""), ("alpha", "call")], hands_per_match=4,
                          duplicate=False, tables_at_once=1, seed=seed,
                          listen=f"127.0.0.1:{port}", start_timeout_seconds=60,
                          rules='games = ["FT"]')
    # The pause must outlast the search: a 30 s decision clock.
    league.write_text(league.read_text().replace("decision_seconds = 2.0", "decision_seconds = 30.0"))
    extra: dict[str, str] = {}
    if planted:
        plant = tmp_path / "plant"
        plant.mkdir()
        (plant / "sitecustomize.py").write_text(_PLANT_EVENT_LOG)
        extra["PYTHONPATH"] = f"{plant}:{env()['PYTHONPATH']}"
    paused, resume = threading.Event(), threading.Event()
    shown: list[str] = []

    async def pause_on_the_flop(view: SeatView) -> Action:
        request = view.request
        if request.hand_number == 3 and request.street == pb.STREET_FLOP and not paused.is_set():
            shown.extend(request.board_cards)
            paused.set()
            while not resume.is_set():
                await asyncio.sleep(0.02)
        return view.check_or_call()

    run = _league(league, 1, extra)
    alpha = _call_bot("alpha", port)
    bot = BotThread("pauser", port, pause_on_the_flop, lambda message: None)
    bot.start()
    try:
        _wait_for(paused.is_set, 90, "the flop of hand 3")
        time.sleep(1.0)  # anything written on a timer has had its chance
        during = _files(tmp_path)
        resume.set()
        assert run.wait(120) == 0, (tmp_path / "league-run-1.out").read_text()
        bot.join(60)
        assert not bot.is_alive() and bot.error is None, bot.error
    finally:
        resume.set()
        for proc in (run, alpha):
            if proc.poll() is None:
                proc.kill()
    assert {parse_card(c) for c in shown}.isdisjoint(hidden)
    names = set(during)
    assert {"league.sqlite", "logs/r1-t1.phhs", "logs/r1-t1.events.pb"} <= names, names
    assert any(n.endswith("-wal") for n in names), names
    leaks = _cards_in(during, hidden)
    if planted:
        assert any(path.endswith(".events.pb") for path, _ in leaks), leaks
    else:
        assert leaks == []
    # The same search finds the hole cards once the hand is over: its history shows them.
    phh = (tmp_path / "logs" / "r1-t1.phhs").read_bytes()
    assert {name for _, name in _cards_in({"phh": phh}, hole)} == {format_card(c) for c in hole}
