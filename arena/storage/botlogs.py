"""What hosted bots print: each instance's stdout and stderr, per bot and match, bounded in bytes.

``<log_dir>/bots/<bot>/<match>.stdout.log`` and ``.stderr.log``: directories 0700, files 0600
(a bot's output may hold its secrets; another bot's author never gets it). Beyond
``max_bytes`` a stream's output is read and dropped, and the file ends with one line saying
how much was dropped. :func:`export_bot_logs` packs one bot's logs, and only those, for its
author (``arena bot logs``).
"""

from __future__ import annotations

import hashlib
import io
import re
import tarfile
from pathlib import Path

from arena.storage.matchlog import make_private_dir
from arena.storage.phhappend import owner_only

DEFAULT_MAX_BYTES = 1024 * 1024  # per instance and stream
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def safe_name(name: str) -> str:
    """A bot or match name as one file name: unsafe characters replaced, and a short hash
    added when any was (so that two names never share a file)."""
    cleaned = _UNSAFE.sub("_", name)[:64]
    if cleaned == name and name not in (".", ".."):
        return name
    return f"{cleaned}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def bot_log_dir(log_dir: Path, bot: str) -> Path:
    return log_dir / "bots" / safe_name(bot)


class BoundedLog:
    """One instance's stream on disk: the first ``max_bytes`` kept, the rest counted."""

    def __init__(self, path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        make_private_dir(path.parent.parent)
        make_private_dir(path.parent)
        self._file = open(path, "ab", opener=owner_only)  # noqa: SIM115
        self.path = path
        self.max_bytes = max_bytes
        self.kept = 0
        self.dropped = 0

    def write(self, chunk: bytes | bytearray) -> None:
        room = self.max_bytes - self.kept
        if room > 0:
            self._file.write(chunk[:room])
            self.kept += min(room, len(chunk))
        self.dropped += max(0, len(chunk) - max(room, 0))

    def note(self, line: str) -> None:
        """A line from the arena (not the bot), always written."""
        self._file.write(f"\n[arena] {line}\n".encode())

    def close(self) -> None:
        if self.dropped:
            self.note(f"{self.dropped:,} more bytes dropped (at most {self.max_bytes:,} are kept)")
        self._file.close()


def instance_logs(log_dir: Path, bot: str, match_id: str, *,
                  max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[BoundedLog, BoundedLog]:
    """The stdout and stderr logs of ``bot``'s instance in ``match_id``."""
    directory = bot_log_dir(log_dir, bot)
    base = safe_name(match_id)
    return (BoundedLog(directory / f"{base}.stdout.log", max_bytes=max_bytes),
            BoundedLog(directory / f"{base}.stderr.log", max_bytes=max_bytes))


def export_bot_logs(log_dir: Path, bot: str, out: Path) -> int:
    """Pack ``bot``'s logs (only its own) into the gzipped tar ``out``, created 0600; returns
    how many files it holds. :class:`FileNotFoundError` when the bot has none."""
    directory = bot_log_dir(log_dir, bot)
    files = sorted(p for p in directory.glob("*.log") if p.is_file() and not p.is_symlink())
    if not files:
        raise FileNotFoundError(f"no logs of bot {bot!r} in {directory}")
    with open(out, "wb", opener=owner_only) as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for path in files:
            data = path.read_bytes()
            info = tarfile.TarInfo(f"{safe_name(bot)}/{path.name}")
            info.size = len(data)
            info.mode = 0o600
            tar.addfile(info, io.BytesIO(data))
    return len(files)
