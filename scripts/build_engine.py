"""Compile the engine's and the dealer's hot modules with mypyc into ``build/mypyc`` (optional:
without it, or when any of their sources changed since, they run as pure Python; see
arena/host/compiled.py).

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
    ARENA_DIR,
    BUILD_DIR,
    MANIFEST,
    MODULES,
    PURE_ENV,
    SUFFIX,
    build_is_fresh,
    module_file,
    source_digests,
)


def build() -> None:
    digests = source_digests()
    BUILD_DIR.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=BUILD_DIR.parent, prefix="mypyc-stage-") as tmp:
        stage = Path(tmp)
        # The whole package, for mypyc's type check; a bare __init__: arena/__init__.py installs
        # the loader, which mypyc need not see.
        shutil.copytree(ARENA_DIR, stage / "arena",
                        ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        (stage / "arena" / "__init__.py").write_text('"""arena."""\n')
        files = [name.replace(".", "/") + ".py" for name in MODULES]
        subprocess.run([sys.executable, "-m", "mypyc", *files], cwd=stage, check=True,
                       stdout=subprocess.DEVNULL)
        out = Path(tempfile.mkdtemp(dir=BUILD_DIR.parent, prefix="mypyc-new-"))
        for library in stage.glob(f"*{SUFFIX}"):  # the runtime shared by the modules
            shutil.move(library, out / library.name)
        for name in MODULES:
            target = module_file(out, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(module_file(stage, name), target)
        (out / MANIFEST).write_text(json.dumps(
            {"suffix": SUFFIX, "modules": list(MODULES), "sources": digests}, indent=1))
    if source_digests() != digests:
        shutil.rmtree(out)
        raise SystemExit("sources changed during the build; run it again")
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
    print(f"{BUILD_DIR}: compiled {', '.join(MODULES)} (set {PURE_ENV}=1 to run pure Python)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
