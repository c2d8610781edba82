"""The read-only web app of a tournament: standings, events (levels, eliminations), tables and
the hand replayer, over a :class:`TournamentSite`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from arena.engine.errors import ArenaError
from arena.web.app import Pages
from arena.web.frames import hand_steps
from arena.web.logfiles import HandSummary, NotFound
from arena.web.tourney_site import TournamentSite, table_of

TOURNAMENT_NAV = [("/", "standings and tables")]


def table_columns(hands: Sequence[HandSummary]) -> list[str]:
    """The bots that played at a table, in the order they first appear: one column each, so
    that a bot's net chips line up from hand to hand whatever its seat."""
    return list(dict.fromkeys(name for hand in hands for name in hand.players))


class TournamentApp(Pages):
    def __init__(self, site: TournamentSite) -> None:
        super().__init__(title=site.config.name, nav=TOURNAMENT_NAV)
        self.site = site

    def index(self, request: Request) -> Response:
        site = self.site
        return self.render("tournament.html", tournament=site.config, standings=site.standings(),
                           events=site.events(), tables=site.tables())

    def table(self, request: Request) -> Response:
        table_id = request.path_params["table_id"]
        hands = self.site.summaries(table_id)
        if not hands:
            raise NotFound(table_id)
        columns = table_columns(hands)
        rows = [(h, [dict(zip(h.players, h.net_chips, strict=False)).get(name) for name in columns])
                for h in hands]
        return self.render("table.html", table_id=table_id, hands=hands, columns=columns,
                           rows=rows, finished=self.site.is_finished())

    def _steps(self, hand_id: str) -> dict[str, Any]:
        hand, _, finished = self.site.hand(hand_id)
        try:
            return hand_steps(hand, reveal=finished, rules=self.site.rules)
        except ArenaError as exc:
            raise NotFound(f"{hand_id}: {exc}") from None

    def hand(self, request: Request) -> Response:
        hand_id = request.path_params["hand_id"]
        data = self._steps(hand_id)
        table_id = table_of(hand_id)
        return self.render("hand.html", hand=data, data=[data], copies=[],
                           back=(f"/table/{quote(table_id, safe='')}", f"table {table_id}"),
                           running_note="the tournament is still running")

    def hand_json(self, request: Request) -> Response:
        return JSONResponse(self._steps(request.path_params["hand_id"]))

    def standings_json(self, request: Request) -> Response:
        """What ``arena tournament standings --format json`` prints (404 while it runs)."""
        doc = self.site.standings()
        if doc is None:
            raise NotFound("standings")
        return JSONResponse(doc)

    def download(self, request: Request) -> Response:
        path = self.site.download(request.path_params["name"])
        return FileResponse(path, media_type="text/plain; charset=utf-8",
                            filename=path.name, content_disposition_type="attachment")

    def starlette(self) -> Starlette:
        return self.app_of([
            Route("/", self.index),
            Route("/table/{table_id}", self.table),
            Route("/hand/{hand_id}", self.hand),
            Route("/api/hand/{hand_id}.json", self.hand_json),
            Route("/api/standings.json", self.standings_json),
            Route("/download/{name}", self.download),
        ])
