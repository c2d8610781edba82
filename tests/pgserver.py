"""A throwaway PostgreSQL server on loopback for tests and benchmarks (Debian's postgresql package).

initdb refuses to run as root, so as root the cluster belongs to the ``postgres`` user and the
binaries run through ``runuser``. `PostgresUnavailable` means PostgreSQL cannot start here at all.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class PostgresUnavailable(RuntimeError):
    pass


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise PostgresUnavailable("no PostgreSQL server binaries (apt-get install postgresql)")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """A running cluster; `url(dbname)` connects as the superuser ``arena`` without a password."""

    def __init__(self, root: Path, port: int, run_as: list[str], bin_dir: Path) -> None:
        self.root, self.port, self._run_as, self._bin = root, port, run_as, bin_dir
        self._counter = 0
        self.options = ""  # the server's command-line settings, for `start`

    def start(self) -> None:
        """Start the server (again, after `crash`) with the same settings, on the same port."""
        self.pg_ctl("-o", self.options, "-l", str(self.root / "server.log"), "-w", "-t", "60", "start")

    def crash(self) -> None:
        """Stop the server at once, as a crash would (``stop -m immediate``: no checkpoint; every
        connection is cut and the next start recovers from the WAL)."""
        self.pg_ctl("-m", "immediate", "-w", "stop")

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://arena@127.0.0.1:{self.port}/{dbname}"

    def new_database(self) -> str:
        """A fresh, empty database; returns its URL."""
        import psycopg

        self._counter += 1
        name = f"t{os.getpid()}_{self._counter}"
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
        return self.url(name)

    def pg_ctl(self, *args: str) -> None:
        subprocess.run([*self._run_as, str(self._bin / "pg_ctl"), "-D", str(self.root / "data"), *args],
                       check=True, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)


@contextmanager
def postgres_server(*, fsync: bool = False) -> Iterator[PostgresServer]:
    """Start a cluster in a temporary directory on 127.0.0.1 and a free port; remove it afterwards."""
    bin_dir = _bin_dir()
    root = Path(tempfile.mkdtemp(prefix="arena-pg-"))
    run_as: list[str] = []
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(root, ignore_errors=True)
            raise PostgresUnavailable("running as root and there is no 'postgres' user") from None
        os.chown(root, user.pw_uid, user.pw_gid)
        run_as = ["runuser", "-u", "postgres", "--"]
    data = root / "data"
    try:
        subprocess.run([*run_as, str(bin_dir / "initdb"), "-D", str(data), "-U", "arena", "-A", "trust",
                        "-E", "UTF8", "--no-sync", "--no-instructions"],
                       check=True, capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        shutil.rmtree(root, ignore_errors=True)
        detail = getattr(exc, "stderr", b"") or b""
        raise PostgresUnavailable(f"initdb failed: {exc} {detail.decode(errors='replace')}") from None
    port = _free_port()
    server = PostgresServer(root, port, run_as, bin_dir)
    options = (f"-c listen_addresses=127.0.0.1 -p {port} -c unix_socket_directories={root} "
               f"-c fsync={'on' if fsync else 'off'} -c max_connections=200")
    server.options = options
    try:
        server.start()
    except (OSError, subprocess.SubprocessError) as exc:
        log = (root / "server.log").read_text(errors="replace") if (root / "server.log").exists() else ""
        shutil.rmtree(root, ignore_errors=True)
        raise PostgresUnavailable(f"pg_ctl start failed: {exc}\n{log[-2000:]}") from None
    try:
        yield server
    finally:
        try:
            server.pg_ctl("-m", "immediate", "stop")
        finally:
            shutil.rmtree(root, ignore_errors=True)
