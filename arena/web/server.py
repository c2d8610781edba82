"""Serving the web app: on the dealer's own asyncio loop (``arena league run --web-port``) or alone
(``arena web --league`` or ``--tournament``), with uvicorn."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import Generator

import uvicorn
from starlette.applications import Starlette

from arena.engine.errors import ConfigError
from arena.league.config import LeagueConfig
from arena.web.app import WebApp
from arena.web.live import SpectatorHub
from arena.web.site import LeagueSite
from arena.web.tournament import TournamentApp, TournamentSite


class _QuietServer(uvicorn.Server):
    """A uvicorn server that leaves the process's signals alone (the dealer owns them)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


def bind(host: str, port: int) -> socket.socket:
    """Bind the web port now, so that its URL is known before the server starts."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        raise ConfigError(f"web: cannot listen on {host}:{port}: {exc}") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


class WebServer:
    """The web app for one league, bound to ``host:port`` (0: any free port)."""

    def __init__(self, config: LeagueConfig | None, *, host: str = "127.0.0.1", port: int = 0,
                 live: bool = False, app: Starlette | None = None) -> None:
        self.spectator = SpectatorHub() if live else None  # the live tables' hub
        if app is None:  # a league's, else any other app of the web (a tournament's)
            assert config is not None
            app = WebApp(LeagueSite(config), hub=self.spectator).starlette()
        self.sock = bind(host, port)
        bound_host, bound_port = self.sock.getsockname()[:2]
        self.url = f"http://{bound_host if ':' not in bound_host else f'[{bound_host}]'}:{bound_port}/"
        self._server = _QuietServer(uvicorn.Config(
            app, lifespan="off", access_log=False, log_level="warning",
            timeout_graceful_shutdown=1))

    async def serve(self) -> None:
        """Serve until cancelled (or :meth:`stop`).

        Cancelled, it still shuts down in order before it returns: the port closes, pages in
        flight get ``timeout_graceful_shutdown`` to finish. A port left open while the event loop
        tears down would take requests whose worker threads are never told to stop (anyio stops
        them when the task they started under ends, and such a task outlives the loop), and the
        process would never exit."""
        loop = asyncio.get_running_loop()
        flusher = loop.create_task(self.spectator.run_flusher()) if self.spectator else None
        serving = loop.create_task(self._server.serve(sockets=[self.sock]))
        try:
            await asyncio.shield(serving)
        except asyncio.CancelledError:
            self.stop()
            while not serving.done():  # bounded: uvicorn cancels what outlasts the grace period
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait({serving})
            if not serving.cancelled():
                serving.exception()  # retrieved: a failure to shut down is not worth a warning
            raise
        finally:
            if flusher is not None:
                flusher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await flusher

    def stop(self) -> None:
        """Shut down: the live streams end (with ``ended``) so that the server need not wait."""
        if self.spectator is not None:
            self.spectator.close()
        self._server.should_exit = True


def run_web(path: str, *, host: str = "127.0.0.1", port: int = 8080,
            tournament: bool = False) -> int:
    """`arena web --league FILE` or `--tournament FILE`: serve its pages until interrupted."""
    from arena.league.config import load_league
    from arena.tourney.config import is_tournament_league, load_tournament

    if tournament or is_tournament_league(path):
        config = load_tournament(path, league_file=not tournament)
        server = WebServer(None, app=TournamentApp(TournamentSite(config)).starlette(),
                           host=host, port=port)
    else:
        server = WebServer(load_league(path), host=host, port=port)
    print(f"web: {server.url}  (Ctrl-C to stop)", flush=True)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, server.stop)
        await server.serve()

    asyncio.run(main())
    return 0
