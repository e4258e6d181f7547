"""Jinja2 environment (autoescape on: agent text is untrusted), atomic page writes, static assets."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from .page import clip
from .scan import VIEWER_DIR
from .trace_parsers.model import pretty

HERE = Path(__file__).parent
STATIC = HERE / "static"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True, auto_reload=False, undefined=jinja2.ChainableUndefined)
    env.filters.update(clip=clip, pretty=pretty, compact=compact, num=fmt_num, secs=fmt_secs, pct=fmt_pct, when=fmt_when)
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def write_page(path: Path, text: str) -> bool:
    """Write atomically; skip the write (and keep the mtime) when nothing changed."""
    data = text.encode("utf-8")
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except OSError:
        pass
    tmp = path.with_name(f".{path.name}.{os.getpid()}.viewer-tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return True


def copy_static(root: Path) -> None:
    """CSS/JS beside the pages, so the report opens from disk and survives being zipped."""
    target = root / VIEWER_DIR
    target.mkdir(parents=True, exist_ok=True)
    for source in STATIC.iterdir():
        dest = target / source.name
        if not dest.exists() or _digest(dest) != _digest(source):
            shutil.copyfile(source, dest)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def up(rel: str) -> str:
    """Relative prefix from a page in directory `rel` back to the output root."""
    depth = len([p for p in rel.split("/") if p])
    return "../" * depth


def compact(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


def fmt_num(value: Any) -> str:
    if value is None or value == "":
        return "–"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.1f}"
    return f"{int(value):,}"


def fmt_secs(value: Any) -> str:
    if not isinstance(value, (int, float)):
        return "–"
    return f"{value:.1f}s" if value < 120 else f"{value / 60:.1f}m"


def fmt_pct(value: Any) -> str:
    return f"{100 * value:.1f}%" if isinstance(value, (int, float)) else "–"


def fmt_when(value: Any) -> str:
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    return str(value) if value else "–"
