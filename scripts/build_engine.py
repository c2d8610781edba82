"""Compile the engine's hot modules with mypyc into ``build/mypyc`` (optional: without it, or
when any engine source changed since, the engine runs as pure Python; see arena/host/compiled.py).

    python scripts/build_engine.py          # build unless the build is up to date
    python scripts/build_engine.py --clean  # remove the build (pure Python again)

Needs mypy (a dev dependency, it brings mypyc), a C compiler and the Python headers.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.host.compiled import (  # noqa: E402
    BUILD_DIR,
    COMPILED,
    MANIFEST,
    PURE_ENV,
    SUFFIX,
    build_is_fresh,
    source_digests,
)


def build() -> None:
    digests = source_digests()
    engine = ROOT / "arena" / "engine"
    BUILD_DIR.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=BUILD_DIR.parent, prefix="mypyc-stage-") as tmp:
        stage = Path(tmp)
        (stage / "arena" / "engine").mkdir(parents=True)
        # A bare package: arena/__init__.py installs the loader, which mypyc need not see.
        (stage / "arena" / "__init__.py").write_text('"""arena."""\n')
        for name in digests:
            shutil.copy2(engine / name, stage / "arena" / "engine" / name)
        files = [f"arena/engine/{module}.py" for module in COMPILED]
        subprocess.run([sys.executable, "-m", "mypyc", *files], cwd=stage, check=True,
                       stdout=subprocess.DEVNULL)
        out = Path(tempfile.mkdtemp(dir=BUILD_DIR.parent, prefix="mypyc-new-"))
        (out / "arena" / "engine").mkdir(parents=True)
        for library in stage.glob(f"*{SUFFIX}"):  # the runtime shared by the modules
            shutil.move(library, out / library.name)
        for module in COMPILED:
            name = f"{module}{SUFFIX}"
            shutil.move(stage / "arena" / "engine" / name, out / "arena" / "engine" / name)
        (out / MANIFEST).write_text(json.dumps(
            {"suffix": SUFFIX, "modules": list(COMPILED), "sources": digests}, indent=1))
    if source_digests() != digests:
        shutil.rmtree(out)
        raise SystemExit("engine sources changed during the build; run it again")
    shutil.rmtree(BUILD_DIR, ignore_errors=True)
    out.rename(BUILD_DIR)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clean", action="store_true", help="remove the build")
    args = parser.parse_args(argv)
    if args.clean:
        shutil.rmtree(BUILD_DIR, ignore_errors=True)
        print(f"removed {BUILD_DIR}")
        return 0
    if build_is_fresh(BUILD_DIR):
        print(f"{BUILD_DIR}: up to date")
        return 0
    build()
    print(f"{BUILD_DIR}: compiled {', '.join(COMPILED)} (set {PURE_ENV}=1 to run pure Python)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
