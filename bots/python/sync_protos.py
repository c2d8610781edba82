#!/usr/bin/env python3
"""Copy the generated wire contract (arena/v1/arena_pb2*.py*) into the bot SDK.

The SDK installs on its own (without the arena package), so it carries its own copy of the
generated code, with the one import that names ``arena.v1`` rewritten. Run from anywhere:

    python bots/python/sync_protos.py           # refresh arena_bot/_proto/
    python bots/python/sync_protos.py --check   # exit 1 if the copy is stale
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parents[1] / "arena" / "v1"
TARGET = HERE / "arena_bot" / "_proto"
FILES = ("arena_pb2.py", "arena_pb2.pyi", "arena_pb2_grpc.py", "arena_pb2_grpc.pyi")
NOTE = "# copied into the bot SDK by bots/python/sync_protos.py\n# ruff: noqa\n"
INIT = '"""The generated wire contract (arena.v1), copied from arena/v1 by sync_protos.py."""\n'


def expected() -> dict[str, str]:
    out = {"__init__.py": INIT}
    for name in FILES:
        text = (SOURCE / name).read_text(encoding="utf-8")
        text = text.replace("from arena.v1 import arena_pb2", "from arena_bot._proto import arena_pb2")
        text = re.sub(r"  # noqa: [A-Z0-9, ]+$", "", text, flags=re.MULTILINE)  # flake8-pyi codes
        out[name] = NOTE + text
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="do not write; exit 1 if stale")
    args = parser.parse_args(argv)
    stale = [name for name, text in expected().items()
             if not (TARGET / name).is_file() or (TARGET / name).read_text(encoding="utf-8") != text]
    if args.check:
        if stale:
            print(f"sync_protos --check: stale in {TARGET}: {', '.join(stale)}; "
                  "run: python bots/python/sync_protos.py", file=sys.stderr)
            return 1
        print("sync_protos --check: the SDK's copy of the wire contract is up to date")
        return 0
    TARGET.mkdir(parents=True, exist_ok=True)
    for name, text in expected().items():
        if name in stale:
            (TARGET / name).write_text(text, encoding="utf-8", newline="\n")
            print(f"wrote {(TARGET / name).relative_to(HERE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
