"""Jinja2 environment (autoescape on: agent text is untrusted), atomic page writes, static assets."""

from __future__ import annotations

import json
import math
import os
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2

from gaia2_runner.output.layout import TRACE_PAGE_FILE, VIEWER_DIR
from gaia2_runner.output.read import safe_io, safe_json
from gaia2_runner.output.read.values import as_num, pretty

from .page import clip

HERE = Path(__file__).parent
STATIC = HERE / "static"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
        undefined=jinja2.ChainableUndefined,
    )
    env.filters.update(
        clip=clip,
        pretty=pretty,
        compact=compact,
        num=fmt_num,
        secs=fmt_secs,
        pct=fmt_pct,
        usd=fmt_usd,
        when=fmt_when,
        page_href=page_href,
        file_href=file_href,
    )
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def write_page(root: Path, path: Path, text: str) -> bool:
    """Write atomically inside `root`; skip the write (and keep the mtime) when nothing changed.
    Text from the files may hold lone surrogates (JSON escapes, undecodable file names): they
    become replacement characters, never an encoding error."""
    return safe_io.write_file(root, path, text.encode("utf-8", errors="replace"))


def copy_static(root: Path) -> None:
    """CSS/JS beside the pages, so the report opens from disk and survives being zipped."""
    target = safe_io.own_dir(root, root / VIEWER_DIR)
    for source in sorted(STATIC.iterdir()):
        safe_io.write_file(root, target / source.name, source.read_bytes())


def up(rel: str) -> str:
    """Relative prefix from a page in directory `rel` back to the output root."""
    depth = len([p for p in rel.split("/") if p])
    return "../" * depth


def url_path(rel: str) -> str:
    """A relative path as URL path segments: every segment percent-encoded (its bytes as on disk),
    so no directory name (`javascript:alert(1)`, `?`, `#`, quotes) can become a scheme, a query,
    a fragment or markup."""
    return "/".join(quote(os.fsencode(part), safe="") for part in rel.split("/") if part)


def page_href(rel: str, prefix: str = "") -> str:
    """Link to the trace page of scenario directory `rel`, from a page `prefix` ("../" …) below the root."""
    path = url_path(rel)
    return (prefix or "./") + (path + "/" if path else "") + TRACE_PAGE_FILE


def page_id(rel: str) -> str:
    """How live reload names the trace page of `rel` (the same encoding as the links)."""
    path = url_path(rel)
    return (path + "/" if path else "") + TRACE_PAGE_FILE


def file_href(name: str) -> str:
    """Link to a file beside the page: `./` and one encoded segment, never a scheme."""
    return "./" + quote(os.fsencode(name), safe="")


def compact(value: Any) -> str:
    try:
        return json.dumps(safe_json.bounded(value), ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return pretty(value)


def fmt_num(value: Any) -> str:
    """A count with thousands separators; a value of another type is shown as (short) text."""
    if value is None or value == "":
        return "–"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        text = value if isinstance(value, str) else compact(value)
        return text if len(text) <= 40 else text[:39] + "…"
    try:
        if isinstance(value, float) and not value.is_integer():
            return f"{value:,.1f}"
        return f"{int(value):,}"
    except (ValueError, OverflowError):
        return "[number too large to show]"


def fmt_secs(value: Any) -> str:
    number = as_num(value)
    if number is None or not math.isfinite(number):
        return "–"
    return f"{number:.1f}s" if number < 120 else f"{number / 60:.1f}m"


def fmt_pct(value: Any) -> str:
    number = as_num(value)
    return f"{100 * number:.1f}%" if number is not None and math.isfinite(number) else "–"


def fmt_usd(value: Any) -> str:
    """Dollars: cents for large sums, more digits for the fractions one call costs."""
    number = as_num(value)
    if number is None or not math.isfinite(number):
        return "–"
    return f"${number:,.2f}" if number >= 1 else f"${number:.4f}"


def fmt_when(value: Any) -> str:
    number = as_num(value)
    if number is not None:
        try:
            return datetime.fromtimestamp(number, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        except (OverflowError, OSError, ValueError):
            return str(value)
    return str(value) if value else "–"
