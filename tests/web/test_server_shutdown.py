"""The web server ends with the event loop it shares, even while browsers keep asking for pages.

`arena league run --web-port` cancels the web server when the league ends. The dealer's other
tasks then take a while to tear down. If the port stayed open meanwhile, requests arriving then
would start anyio worker threads that nobody stops, and the process would never exit (seen as a
CI hang: the main thread joining an idle "AnyIO worker thread"). The script below reproduced
that every time before the fix; it runs in its own process so a regression cannot hang pytest.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.server.procs import ROOT, env

SCRIPT = textwrap.dedent('''
    import asyncio, contextlib, os, threading, time, urllib.request
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route
    from arena.web.server import WebServer

    loop_ended = threading.Event()
    late_pages = []

    def page(request):  # a sync page: Starlette renders it in an anyio worker thread
        if loop_ended.is_set():
            late_pages.append(1)
        time.sleep(0.2)
        return PlainTextResponse("page")

    async def slow_to_cancel(request):  # stands in for the dealer's tasks that end slowly
        try:
            await asyncio.sleep(100)
        except asyncio.CancelledError:
            await asyncio.shield(asyncio.sleep(0.6))
            raise

    server = WebServer(
        None, app=Starlette(routes=[Route("/", page), Route("/slow", slow_to_cancel)]),
        host="127.0.0.1", port=0)
    stop_asking = threading.Event()

    def browser():
        while not stop_asking.is_set():
            with contextlib.suppress(Exception):
                urllib.request.urlopen(server.url, timeout=5).read()

    def slow_browser():
        with contextlib.suppress(Exception):
            urllib.request.urlopen(server.url + "slow", timeout=30).read()

    threading.Thread(target=slow_browser, daemon=True).start()
    for _ in range(6):
        threading.Thread(target=browser, daemon=True).start()

    async def main():
        web = asyncio.get_running_loop().create_task(server.serve())
        await asyncio.sleep(0.5)
        web.cancel()  # what the league runner does when the league ends
        with contextlib.suppress(asyncio.CancelledError):
            await web
        loop_ended.set()

    asyncio.run(main())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(
            t.name == "AnyIO worker thread" for t in threading.enumerate()):
        time.sleep(0.05)
    left = sum(t.name == "AnyIO worker thread" for t in threading.enumerate())
    print(f"worker threads left {left}, pages served after the loop ended {len(late_pages)}",
          flush=True)
    stop_asking.set()
    os._exit(1 if left or late_pages else 0)
''')


def test_cancelled_web_server_closes_its_port_and_leaves_no_worker_thread(tmp_path: Path) -> None:
    script = tmp_path / "web_ends.py"
    script.write_text(SCRIPT, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert "worker threads left 0, pages served after the loop ended 0" in done.stdout


LIVE_SCRIPT = textwrap.dedent('''
    import asyncio, threading, urllib.request
    from starlette.applications import Starlette
    from starlette.responses import StreamingResponse
    from starlette.routing import Route
    from arena.web.server import WebServer

    def events(request):
        return StreamingResponse(server.spectator.stream(), media_type="text/event-stream")

    server = WebServer(None, live=True, app=Starlette(routes=[Route("/live/events", events)]))
    lines, opened = [], threading.Event()

    def spectator():  # a browser on the live page when the league ends
        with urllib.request.urlopen(server.url + "live/events", timeout=30) as stream:
            opened.set()
            lines.extend(line.decode().rstrip() for line in stream)

    reader = threading.Thread(target=spectator)
    reader.start()

    async def main():
        web = asyncio.get_running_loop().create_task(server.serve())
        await asyncio.to_thread(opened.wait, 10)
        web.cancel()  # what the league runner does when the league ends
        try:
            await web
        except asyncio.CancelledError:
            pass

    asyncio.run(main())
    reader.join(10)
    print("stream ended" if not reader.is_alive() else "stream still open", lines, flush=True)
''')


def test_a_spectator_stream_ends_with_the_league_and_holds_no_shutdown(tmp_path: Path) -> None:
    """The live page's stream is told ``ended`` and closes when the web server stops; before,
    uvicorn waited out its grace period, cancelled the stream and logged the cancellation as
    an "Exception in ASGI application" at the end of every league watched in a browser."""
    script = tmp_path / "live_ends.py"
    script.write_text(LIVE_SCRIPT, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert done.stdout.startswith("stream ended"), done.stdout
    assert "'event: ended'" in done.stdout, done.stdout
    assert "ERROR" not in done.stderr and "Exception" not in done.stderr, done.stderr[-2000:]
