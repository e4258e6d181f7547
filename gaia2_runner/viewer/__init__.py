"""Static HTML views of an output directory (`view`) and a live monitor of it (`serve`)."""

from __future__ import annotations

import threading
from pathlib import Path

from gaia2_runner.output.read.safe_io import output_root
from gaia2_runner.output.read.verdicts import CURRENT

from .site import Site

__all__ = ["Site", "build", "regenerate_index"]

_sites: dict[tuple[Path, str], Site] = {}
_sites_lock = threading.Lock()


def build(output_dir: Path, verdicts: str = CURRENT) -> Site:
    """Bring every page of `output_dir` up to date (a full pass, reusing unchanged rows), showing
    the verdict set `verdicts` (output/read/verdicts.py: current, original or rejudged)."""
    site = _site(output_dir, verdicts)
    site.refresh()
    return site


def regenerate_index(output_dir: Path) -> list[str]:
    """Refresh index.html and the trace.html of every scenario whose files changed since the last
    call; cheap to call after each result (unchanged scenarios are not re-read). Returns the pages
    written, relative to `output_dir`."""
    return _site(output_dir).refresh()


def _site(output_dir: Path, verdicts: str = CURRENT) -> Site:
    key = (output_root(output_dir), verdicts)
    with _sites_lock:
        if key not in _sites:
            _sites[key] = Site(key[0], verdicts)
        return _sites[key]
