"""The hosted bots' sandbox with the real bubblewrap (issue 36): escape and abuse attempts.

Each test starts one sandbox as play does (`arena.host.sandbox.command_line`) and runs a probe
inside; what the probe reaches is checked from outside. No timing thresholds: a never-ending
bot is killed and its processes looked for, not timed."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.host import cgroups
from arena.host.botpackage import BotPackage
from arena.host.sandbox import Instance, build, command_line, kill, prepare, probe

pytestmark = [pytest.mark.timeout(120)]

if probe():
    if os.environ.get("CI") == "true":
        pytest.fail(f"bubblewrap must run in CI: {probe()}", pytrace=False)
    pytest.skip(f"no sandbox here: {probe()}", allow_module_level=True)


def _package(tmp_path: Path, **limits: object) -> BotPackage:
    directory = tmp_path / "pkg"
    directory.mkdir(exist_ok=True)
    return BotPackage(directory=directory, name="probe", run="true", **limits)  # type: ignore[arg-type]


def _run(package: BotPackage, script: str, *, socket_path: Path | None = None,
         timeout: float = 60) -> subprocess.CompletedProcess[str]:
    (package.directory / "probe.py").write_text(textwrap.dedent(script))
    sandbox = prepare(Instance(package=package, command="python3 probe.py", socket=socket_path,
                               env={"ARENA_TOKEN": "t" * 16}))
    try:
        return subprocess.run(sandbox.argv, env=sandbox.env, capture_output=True, text=True,
                              timeout=timeout, check=False)
    finally:
        sandbox.release()


@pytest.fixture
def listeners() -> Iterator[tuple[socket.socket, socket.socket]]:
    """A TCP and a UDP listener on the host's loopback."""
    tcp = socket.create_server(("127.0.0.1", 0))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    try:
        yield tcp, udp
    finally:
        tcp.close()
        udp.close()


def test_no_network_at_all(tmp_path: Path, listeners: tuple[socket.socket, socket.socket]) -> None:
    tcp, udp = listeners
    tcp_port, udp_port = tcp.getsockname()[1], udp.getsockname()[1]
    done = _run(_package(tmp_path), f"""
        import json, socket
        out = {{}}
        try:
            socket.create_connection(("127.0.0.1", {tcp_port}), timeout=2)
            out["tcp"] = "connected"
        except OSError as exc:
            out["tcp"] = type(exc).__name__
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.sendto(b"leak", ("127.0.0.1", {udp_port}))
            out["udp"] = "sent"
        except OSError as exc:
            out["udp"] = type(exc).__name__
        try:
            socket.create_connection(("10.0.0.1", 80), timeout=2)
            out["outside"] = "connected"
        except OSError as exc:
            out["outside"] = type(exc).__name__
        out["interfaces"] = [name for _, name in socket.if_nameindex()]
        print(json.dumps(out))
    """)
    result = json.loads(done.stdout)
    assert result["tcp"] != "connected" and result["outside"] != "connected", result
    assert result["interfaces"] == ["lo"], result  # a network namespace of its own
    # What it "sent" went to its own loopback: the host's listeners got nothing (the probe
    # has exited, so anything sent would be queued by now).
    udp.setblocking(False)
    with pytest.raises(BlockingIOError):
        udp.recv(64)
    tcp.setblocking(False)
    with pytest.raises(BlockingIOError):
        tcp.accept()


def test_nothing_of_the_host_is_visible(tmp_path: Path) -> None:
    secrets_dir = tmp_path / "secret"
    secrets_dir.mkdir(mode=0o700)
    (secrets_dir / "league.secret").write_text("hunter2")
    other = tmp_path / "other-pkg"
    other.mkdir()
    (other / "bot.py").write_text("# another author's bot\n")
    store = tmp_path / "league.sqlite"
    store.write_text("store")
    done = _run(_package(tmp_path), f"""
        import json, os
        tries = {{"secret": {str(secrets_dir / 'league.secret')!r}, "other": {str(other / 'bot.py')!r},
                  "store": {str(store)!r}, "dealer_env": "/proc/{os.getpid()}/environ",
                  "shadow": "/etc/shadow", "home": "/root/.bash_history",
                  "worktree": {str(Path(__file__).resolve())!r}}}
        out = {{}}
        for key, path in tries.items():
            try:
                with open(path) as fh:
                    out[key] = fh.read(100)
            except OSError as exc:
                out[key] = type(exc).__name__
        out["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        out["uid"] = os.getuid()
        for target in ("/arena/bot/x", "/usr/x", "/x", "/arena/sdk/python/x"):
            try:
                open(target, "w").close()
                out[target] = "written"
            except OSError as exc:
                out[target] = type(exc).__name__
        for target in ("/arena/work/x", "/tmp/x"):
            open(target, "w").close()
            out[target] = "written"
        print(json.dumps(out))
    """)
    result = json.loads(done.stdout)
    for key in ("secret", "other", "store", "dealer_env", "shadow", "home", "worktree"):
        assert result[key] in ("FileNotFoundError", "PermissionError"), (key, result[key])
    assert max(result["pids"]) < 10, result["pids"]  # its own processes only
    assert result["uid"] == 65534
    for target in ("/arena/bot/x", "/usr/x", "/x", "/arena/sdk/python/x"):
        assert result[target] != "written", target
    assert result["/arena/work/x"] == result["/tmp/x"] == "written"
    assert not (tmp_path / "pkg" / "x").exists()


def test_limits_hold_fork_bomb_memory_and_disk(tmp_path: Path) -> None:
    package = _package(tmp_path, memory_mib=64, processes=16, disk_mib=4)
    done = _run(package, """
        import json, os
        out = {}
        try:
            hog = bytearray(512 * 1024 * 1024)
            out["memory"] = "allocated"
        except MemoryError:
            out["memory"] = "MemoryError"
        children = 0
        try:
            for _ in range(200):
                pid = os.fork()
                if pid == 0:
                    import time
                    time.sleep(60)
                    os._exit(0)
                children += 1
            out["fork"] = "unbounded"
        except OSError as exc:
            out["fork"] = type(exc).__name__
        out["children"] = children
        try:
            with open("/arena/work/big", "wb") as fh:
                for _ in range(64):
                    fh.write(b"x" * 1024 * 1024)
            out["disk"] = "written"
        except OSError as exc:
            out["disk"] = exc.strerror
        print(json.dumps(out), flush=True)
        os._exit(0)
    """)
    result = json.loads(done.stdout)
    assert result["memory"] == "MemoryError"
    assert result["disk"] == "File too large", result
    group = cgroups.create(package)
    cgroups.remove(group)
    if group is None and os.getuid() == 0:
        pytest.skip("no writable cgroups and running as root: RLIMIT_NPROC never stops root")
    assert result["fork"] == "BlockingIOError" and result["children"] <= 16, result


def test_a_bot_that_never_exits_is_gone_with_its_sandbox(tmp_path: Path) -> None:
    marker = f"arena-test-{uuid.uuid4().hex}"
    package = _package(tmp_path)
    (package.directory / "stay.sh").write_text(
        f"trap '' TERM HUP INT\n(exec -a {marker} sleep 1000) &\nexec -a {marker} sleep 1000\n")
    argv, env = command_line(Instance(package=package, command="bash stay.sh"))
    proc = subprocess.Popen(argv, env=env, start_new_session=True, stdout=subprocess.PIPE)
    for _ in range(600):  # both sleeps started (seen from outside)
        if len(_processes_named(marker)) >= 2:
            break
        subprocess.run(["sleep", "0.05"], check=True)
    assert len(_processes_named(marker)) >= 2
    kill(proc)
    for _ in range(600):  # the PID namespace is torn down by the kernel, not at once
        if not _processes_named(marker):
            break
        subprocess.run(["sleep", "0.05"], check=True)
    assert _processes_named(marker) == []


def _processes_named(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return [pid for pid in found if pid != os.getpid()]


def test_a_build_that_hangs_is_killed(tmp_path: Path) -> None:
    marker = f"arena-build-{uuid.uuid4().hex}"
    package = BotPackage(directory=_package(tmp_path).directory, name="hang", run="true",
                         build=f"bash -c 'exec -a {marker} sleep 1000'", build_seconds=1)
    result = build(package)
    assert not result.ok and result.exit_code is None
    assert "ran over 1 s and was killed" in result.problem
    assert _processes_named(marker) == []


def test_a_failing_build_says_why(tmp_path: Path) -> None:
    package = BotPackage(directory=_package(tmp_path).directory, name="bad", run="true",
                         build="echo compiling; echo 'error: no such file' >&2; exit 3")
    result = build(package)
    assert (result.ok, result.exit_code) == (False, 3)
    assert "exit code 3" in result.problem and "error: no such file" in result.output


def test_the_build_has_no_network_but_may_write_its_package(tmp_path: Path) -> None:
    package = BotPackage(directory=_package(tmp_path).directory, name="b", run="true",
                         build=f"{sys.executable} -c \"import urllib.request as u; "
                               "u.urlopen('http://127.0.0.1:9', timeout=2)\" "
                               "|| echo offline > built.txt")
    assert build(package).ok
    assert (package.directory / "built.txt").read_text() == "offline\n"


def test_a_cpu_hog_gets_no_more_than_its_share(tmp_path: Path) -> None:
    """cpu_share 0.2: whatever the machine's load, the hog's CPU stays under its quota (an upper
    bound only: a loaded machine gives it less, never more)."""
    package = _package(tmp_path, cpu_share=0.2)
    sandbox = prepare(Instance(package=package, command="python3 -c 'while True: pass'"))
    if sandbox.group is None:
        sandbox.release()
        pytest.skip("no writable cgroups here: cpu_share is a nice level only")
    started = time.monotonic()
    proc = subprocess.Popen(sandbox.argv, env=sandbox.env, start_new_session=True)
    try:
        time.sleep(1.5)
        used = sandbox.cpu_seconds()
        elapsed = time.monotonic() - started
    finally:
        kill(proc)
        sandbox.release()
    assert used is not None and used <= 0.2 * elapsed + 0.15, (used, elapsed)


NETNS = f"arena36-{os.getpid() % 100000}"


@pytest.fixture
def other_namespace() -> Iterator[str]:
    """A network namespace of this test's own, reached from the host over a veth pair: its
    address, 10.236.0.2 (no other network is ever touched)."""
    if shutil.which("ip") is None or os.getuid() != 0:
        pytest.skip("making a network namespace needs root and iproute2")
    made = subprocess.run(["ip", "netns", "add", NETNS], capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"cannot make a network namespace: {made.stderr.decode().strip()}")
    try:
        for args in (["link", "add", f"{NETNS}-h", "type", "veth", "peer", "name", "eth0",
                      "netns", NETNS],
                     ["addr", "add", "10.236.0.1/30", "dev", f"{NETNS}-h"],
                     ["link", "set", f"{NETNS}-h", "up"],
                     ["-n", NETNS, "addr", "add", "10.236.0.2/30", "dev", "eth0"],
                     ["-n", NETNS, "link", "set", "eth0", "up"],
                     ["-n", NETNS, "link", "set", "lo", "up"]):
            subprocess.run(["ip", *args], check=True, capture_output=True)
        yield "10.236.0.2"
    finally:
        subprocess.run(["ip", "link", "del", f"{NETNS}-h"], capture_output=True, check=False)
        subprocess.run(["ip", "netns", "del", NETNS], capture_output=True, check=False)


def test_a_listener_in_another_network_namespace_is_unreachable(
        tmp_path: Path, other_namespace: str) -> None:
    listener = subprocess.Popen(
        ["ip", "netns", "exec", NETNS, sys.executable, "-c",
         "import socket, sys\n"
         "s = socket.create_server(('0.0.0.0', 7361)); print('up', flush=True)\n"
         "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('0.0.0.0', 7361))\n"
         "s.settimeout(60)\n"
         "while True:\n"
         "    c, _ = s.accept(); c.sendall(b'reached'); c.close()\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert listener.stdout is not None and listener.stdout.readline() == "up\n"
        with socket.create_connection((other_namespace, 7361), timeout=10) as direct:
            assert direct.recv(16) == b"reached"  # the host reaches it: the listener is real
        done = _run(_package(tmp_path), f"""
            import json, socket
            out = {{}}
            try:
                with socket.create_connection(({other_namespace!r}, 7361), timeout=5) as c:
                    out["tcp"] = c.recv(16).decode()
            except OSError as exc:
                out["tcp"] = type(exc).__name__
            try:
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ({other_namespace!r}, 7361))
                out["udp"] = "sent"
            except OSError as exc:
                out["udp"] = type(exc).__name__
            print(json.dumps(out))
        """)
        result = json.loads(done.stdout)
        assert result["tcp"] != "reached" and result["udp"] != "sent", result
    finally:
        listener.kill()
        listener.wait()


def test_arena_bot_check_lists_every_problem_and_runs_the_build(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "arena-bot.toml").write_text('name = 3\nrun = ""\nmemory_mib = nan\nextra = 1\n')
    done = subprocess.run([sys.executable, "-m", "arena.cli", "bot", "check", str(bad)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert "4 problem(s)" in done.stderr and "'memory_mib' must be an integer" in done.stderr
    good = tmp_path / "good"
    good.mkdir()
    (good / "arena-bot.toml").write_text(
        'name = "good"\nbuild = "echo compiled > out.txt; echo building"\nrun = "true"\n')
    done = subprocess.run([sys.executable, "-m", "arena.cli", "bot", "check", str(good)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "building" in done.stdout and "good: arena-bot.toml valid" in done.stdout
    assert (good / "out.txt").read_text() == "compiled\n"


def test_arena_bot_logs_hands_one_bot_its_own_logs_only(tmp_path: Path) -> None:
    from arena.storage.botlogs import instance_logs

    for bot in ("alice", "bob"):
        out, err = instance_logs(tmp_path, bot, "r1-t1-c1", max_bytes=10)
        out.write(f"{bot} secret strategy".encode())
        err.note("stopped")
        out.close()
        err.close()
    archive = tmp_path / "alice.tgz"
    done = subprocess.run([sys.executable, "-m", "arena.cli", "bot", "logs", str(tmp_path),
                           "alice", "-o", str(archive)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert archive.stat().st_mode & 0o777 == 0o600
    import tarfile

    with tarfile.open(archive) as tar:
        names = tar.getnames()
        text = b"".join(tar.extractfile(n).read() for n in names)  # type: ignore[union-attr]
    assert sorted(names) == ["alice/r1-t1-c1.stderr.log", "alice/r1-t1-c1.stdout.log"]
    assert b"alice secr" in text and b"bob" not in text
    assert b"more bytes dropped" in text  # 10 bytes kept of 20
    missing = subprocess.run([sys.executable, "-m", "arena.cli", "bot", "logs", str(tmp_path),
                              "carol", "-o", str(tmp_path / "c.tgz")], capture_output=True,
                             text=True, timeout=60, check=False)
    assert missing.returncode == 1 and "no logs of bot 'carol'" in missing.stderr
