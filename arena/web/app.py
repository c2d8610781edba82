"""The read-only web app (Starlette): league, leaderboard, match, hand replayer and live pages.

Pages are rendered on the server with Jinja2 (autoescaping on: every bot name, id and log value
is escaped); the replayer and the live page add one small script each, served from
``arena/web/static``. Page handlers are plain functions, so Starlette runs them in worker
threads and file reading never holds up the dealer's event loop.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.engine.errors import ArenaError
from arena.engine.games import ALL_GAMES, ALL_VARIANTS
from arena.league.hosting import remote_duplicate, trust_note
from arena.league.leaderboard import game_label, to_json
from arena.league.stats import GAME_KEYS
from arena.server.eventrecord import read_events
from arena.web import charts
from arena.web.choice import covers
from arena.web.frames import hand_steps
from arena.web.live import SpectatorHub
from arena.web.logfiles import LogSite, NotFound
from arena.web.site import LeagueSite

STATIC = Path(__file__).with_name("static")
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")

def game_name(code: str) -> str:
    """A game's name by its code (issue 42's games too); a code no game has (an untrusted log's)
    as itself."""
    variant = ALL_VARIANTS.get(code)
    return variant.name if variant is not None else code


class _Headers:
    """Security headers on every response (plain ASGI: streams pass through untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = CSP
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
                if "cache-control" not in headers:
                    headers["Cache-Control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)


T = TypeVar("T")


class Fresh(Generic[T]):
    """``compute()``, computed again once over ``ttl_seconds`` old. Thread-safe: pages are built
    in worker threads."""

    def __init__(self, compute: Callable[[], T], ttl_seconds: float) -> None:
        self.compute, self.ttl_seconds = compute, ttl_seconds
        self._lock = threading.Lock()
        self._value: tuple[float, T] | None = None

    def __call__(self) -> T:
        with self._lock:
            now = time.monotonic()
            if self._value is None or now - self._value[0] > self.ttl_seconds:
                self._value = (now, self.compute())
            return self._value[1]


def attachment(path: Path) -> FileResponse:
    """A log or results file, to save (never rendered by the browser)."""
    return FileResponse(path, media_type="text/plain; charset=utf-8", filename=path.name,
                        content_disposition_type="attachment")


class Pages:
    """What every app of the web shares: templates (autoescaped), the 404 page, the hand
    replayer's pages over ``site`` and the Starlette app with the security headers and the
    static files."""

    site: LogSite

    def __init__(self, *, title: str, nav: list[tuple[str, str]]) -> None:
        self.env = Environment(loader=PackageLoader("arena.web", "templates"),
                               autoescape=select_autoescape(default=True, default_for_string=True))
        self.env.globals.update(game_label=game_label, game_name=game_name, title=title, nav=nav)
        # `tojson`: JSON safe inside <script type="application/json"> (<, >, & and ' escaped)
        self.env.policies["json.dumps_kwargs"] = {"separators": (",", ":"), "allow_nan": False}

    def render(self, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        html = self.env.get_template(template).render(**context)
        return HTMLResponse(html, status_code=status_code)

    async def not_found(self, request: Request, exc: Exception) -> Response:
        return HTMLResponse(self.env.get_template("missing.html").render(), status_code=404)

    def _steps(self, hand_id: str) -> dict[str, Any]:
        """The replayer's data of a logged hand: its unshown cards hidden until the end."""
        hand, _, finished = self.site.hand(hand_id)
        try:
            return hand_steps(hand, reveal=finished, rules=self.site.rules)
        except ArenaError as exc:
            raise NotFound(f"{hand_id}: {exc}") from None

    def _hand_page(self, hand_id: str, data: dict[str, Any]) -> dict[str, Any]:
        """The hand page's ``back`` link, ``copies`` of its deal and ``running_note``."""
        raise NotImplementedError

    def hand(self, request: Request) -> Response:
        hand_id = request.path_params["hand_id"]
        data = self._steps(hand_id)
        return self.render("hand.html", hand=data, data=[data], **self._hand_page(hand_id, data))

    def hand_json(self, request: Request) -> Response:
        return JSONResponse(self._steps(request.path_params["hand_id"]))

    def app_of(self, routes: list[Route]) -> Starlette:
        return Starlette(routes=[*routes, Route("/hand/{hand_id}", self.hand),
                                 Route("/api/hand/{hand_id}.json", self.hand_json),
                                 Mount("/static", StaticFiles(directory=STATIC), name="static")],
                         middleware=[Middleware(_Headers)],
                         exception_handlers={NotFound: self.not_found, 404: self.not_found})


LEAGUE_NAV = [("/live", "live tables"), ("/leaderboard", "leaderboard"), ("/", "matches")]


class WebApp(Pages):
    """Routes over a :class:`LeagueSite` and, inside ``arena league run``, a live hub."""

    site: LeagueSite

    def __init__(self, site: LeagueSite, *, hub: SpectatorHub | None = None,
                 board_ttl_seconds: float = 2.0) -> None:
        super().__init__(title=site.config.name, nav=LEAGUE_NAV)
        self.site = site
        self.hub = hub
        self.env.globals.update(league=site.config)
        self._leaderboard = Fresh(site.leaderboard, board_ttl_seconds)

    # ------------------------------------------------------------------ pages

    def index(self, request: Request) -> Response:
        matches = self.site.matches()
        done = sum(m.hands_logged for m in matches)
        total = sum(m.hands_total for m in matches)
        return self.render("league.html", matches=matches, done=done, total=total,
                           live=self.hub is not None)

    def leaderboard(self, request: Request) -> Response:
        game = request.query_params.get("game", ALL_GAMES)
        if game not in GAME_KEYS:
            # A 400 page saying what was wrong with the request, with links to what is right.
            return self.render(
                "bad_request.html", 400,
                message=f"unknown game {game[:80]!r}; the games are {', '.join(GAME_KEYS)}",
                links=[(f"/leaderboard?game={quote(g, safe='/')}", game_label(g)) for g in GAME_KEYS])
        board, curves = self._leaderboard()
        rows = [s for s in board.stats if s.game == game]
        intervals = [charts.Interval(s.bot, s.mean_mbb, s.raw.ci_half_width_mbb,
                                     s.duplicate.ci_half_width_mbb) for s in rows]
        cells = {(p.bot, p.opponent): (p.mean_mbb, p.duplicate.ci_half_width_mbb, p.is_significant)
                 for p in board.crosstable}
        bankroll = {bot: games.get(game, []) for bot, games in curves.items()}
        faults = self.site.faults()
        pots = {bot: self.site.biggest_pots(bot, 3) for bot in board.bots}
        return self.render(
            "leaderboard.html", board=board, game=game, games=GAME_KEYS, rows=rows,
            error_bars=charts.error_bars(intervals), heat_map=charts.heat_map(board.bots, cells),
            bankroll=charts.bankroll_curves(bankroll), faults=faults, pots=pots,
            left_out=self.site.left_out(), trust_note=trust_note(self.site.config))

    def leaderboard_json(self, request: Request) -> Response:
        """What ``arena leaderboard --format json`` prints."""
        board, _ = self._leaderboard()
        config = self.site.config
        return Response(to_json(board, faults=self.site.fault_counts(), left_out=self.site.left_out(),
                                strategy_shares=self.site.strategy_shares(),
                                trusted=remote_duplicate(config), trust_note=trust_note(config)),
                        media_type="application/json")

    def match(self, request: Request) -> Response:
        info = self.site.match(request.path_params["match_id"])
        hands = self.site.summaries(info.match_id)
        return self.render("match.html", match=info, hands=hands,
                           choices=self.site.choices(info.match_id))

    def _steps(self, hand_id: str) -> dict[str, Any]:
        data = super()._steps(hand_id)
        number = data["hand_number"]
        data["choice"] = next((c for c in self.site.choices(data["match_id"])
                               if isinstance(number, int) and covers(c, number)), None)
        return data

    def _hand_page(self, hand_id: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"copies": self.site.deal_copies(data["deal_id"]) if data["deal_id"] else [],
                "back": (f"/match/{quote(data['match_id'], safe='')}", f"match {data['match_id']}"),
                "running_note": "the match is still running"}

    def deal(self, request: Request) -> Response:
        deal_id = request.query_params.get("id", "")
        copies = [self._steps(h) for h in self.site.deal_copies(deal_id)]
        return self.render("deal.html", deal_id=deal_id, hands=copies, data=copies)

    def bot(self, request: Request) -> Response:
        name = request.query_params.get("name", "")
        if name not in {b.name for b in self.site.config.bots}:
            raise NotFound(name)
        board, _ = self._leaderboard()
        rows = [s for s in board.stats if s.bot == name]
        return self.render("bot.html", bot=name, rows=rows, pots=self.site.biggest_pots(name, 20),
                           faults=self.site.faults().get(name))

    def live(self, request: Request) -> Response:
        return self.render("live.html", live=self.hub is not None)

    async def live_events(self, request: Request) -> Response:
        if self.hub is None:
            raise NotFound("live")
        return StreamingResponse(self.hub.stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def live_json(self, request: Request) -> Response:  # on the loop: the hub is not shared
        return JSONResponse(self.hub.snapshot() if self.hub is not None else [])

    def download(self, request: Request) -> Response:
        path = self.site.download(request.path_params["match_id"], request.path_params["kind"])
        if request.path_params["kind"] == "events":  # records on disk, JSON lines when read
            name = quote(path.name.removesuffix(".pb") + ".jsonl")
            return StreamingResponse(
                (json.dumps(record, separators=(",", ":")) + "\n" for record in read_events(path)),
                media_type="text/plain; charset=utf-8",
                headers={"content-disposition": f"attachment; filename*=utf-8''{name}"})
        return attachment(path)

    def league_file(self, request: Request) -> Response:
        path = self.site.leaderboard_file(request.path_params["name"])
        return FileResponse(path, media_type="text/plain; charset=utf-8")

    def starlette(self) -> Starlette:
        routes = [
            Route("/", self.index),
            Route("/leaderboard", self.leaderboard),
            Route("/api/leaderboard.json", self.leaderboard_json),
            Route("/match/{match_id}", self.match),
            Route("/deal", self.deal),
            Route("/bot", self.bot),
            Route("/live", self.live),
            Route("/live/events", self.live_events),
            Route("/api/live.json", self.live_json),
            Route("/download/{match_id}/{kind}", self.download),
            Route("/files/{name}", self.league_file),
        ]
        return self.app_of(routes)
