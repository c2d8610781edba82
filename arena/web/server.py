"""Serving the web app: on the dealer's own asyncio loop (``arena league run --web-port``) or alone
(``arena web --league``), with uvicorn."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import Generator

import uvicorn

from arena.engine.errors import ConfigError
from arena.league.config import LeagueConfig
from arena.web.app import WebApp
from arena.web.live import SpectatorHub
from arena.web.site import LeagueSite


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

    def __init__(self, config: LeagueConfig, *, host: str = "127.0.0.1", port: int = 0,
                 live: bool = False) -> None:
        self.hub = SpectatorHub() if live else None
        self.app = WebApp(LeagueSite(config), hub=self.hub)
        self.sock = bind(host, port)
        bound_host, bound_port = self.sock.getsockname()[:2]
        self.url = f"http://{bound_host if ':' not in bound_host else f'[{bound_host}]'}:{bound_port}/"
        self._server = _QuietServer(uvicorn.Config(
            self.app.starlette(), lifespan="off", access_log=False, log_level="warning",
            timeout_graceful_shutdown=1))

    async def serve(self) -> None:
        """Serve until cancelled (or :meth:`stop`)."""
        flusher = asyncio.get_running_loop().create_task(self.hub.run_flusher()) if self.hub else None
        try:
            await self._server.serve(sockets=[self.sock])
        finally:
            if flusher is not None:
                flusher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await flusher

    @property
    def spectator(self) -> SpectatorHub | None:
        return self.hub

    def stop(self) -> None:
        self._server.should_exit = True


def run_web(league_path: str, *, host: str = "127.0.0.1", port: int = 8080) -> int:
    """`arena web --league FILE`: serve the league's pages until interrupted."""
    from arena.engine.errors import ConfigError
    from arena.league.config import load_league
    from arena.league.tourney_config import is_tournament_league

    if is_tournament_league(league_path):
        raise ConfigError(f"{league_path}: a tournament (its format is seed-003 or freezeout); the web "
                          "app shows leagues only. Standings: arena tournament standings "
                          f"{league_path}; hands: the .phhs files in its log_dir")
    server = WebServer(load_league(league_path), host=host, port=port)
    print(f"web: {server.url}  (Ctrl-C to stop)", flush=True)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, server.stop)
        await server.serve()

    asyncio.run(main())
    return 0
