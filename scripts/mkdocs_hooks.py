"""MkDocs hook (mkdocs.yml `hooks:`): links from a docs page to a file of the repository outside
docs/ (`[the example](../bots/packages/x/arena-bot.toml)`, as GitHub shows them) become the
file's path as code on the site, which cannot serve it; a link to such a file that does not
exist is a warning, so `mkdocs build --strict` fails on it as on a broken link between pages."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

_LINK = re.compile(r"\[([^\]]+)\]\((\.\./[^)\s#]+)(#[^)\s]*)?\)")
log = logging.getLogger("mkdocs.plugins.arena")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    docs = Path(config["docs_dir"]).resolve()
    root = Path(config["config_file_path"]).resolve().parent  # the repository: mkdocs.yml's folder
    page_dir = (docs / page.file.src_path).parent

    def outside(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        path = (page_dir / target).resolve()
        if path.is_relative_to(docs):
            return match.group(0)  # a docs page: MkDocs checks it
        if not path.is_relative_to(root) or not path.exists():
            log.warning("Doc file '%s' links to '%s', which is not in the repository",
                        page.file.src_path, target)
            return match.group(0)
        name = path.relative_to(root).as_posix()
        return text if text.strip("`") == name else f"{text} (`{name}`)"

    return _LINK.sub(outside, markdown)
