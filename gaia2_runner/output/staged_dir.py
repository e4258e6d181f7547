"""A directory written whole: built beside its place, then swapped in, so a re-export never leaves
files of an earlier one (a config no longer in the runs would be uploaded with the new rows) and an
interrupted export leaves the previous one intact.

A directory is only replaced when it is empty or carries EXPORT_MARKER (an earlier export's): a
mistyped `--out` pointing at other files is refused, never deleted.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from gaia2_runner.errors import Gaia2Error

EXPORT_MARKER = ".gaia2-runner-export"  # in every directory export; left out of uploads


def check_replaceable(dest: Path) -> None:
    """Refuse a `dest` that holds files this runner did not export."""
    if dest.is_dir() and any(dest.iterdir()) and not (dest / EXPORT_MARKER).is_file():
        raise Gaia2Error(f"--out {dest}: exists and holds files not written by an export (no "
                         f"{EXPORT_MARKER}): choose another --out or remove it")


@contextmanager
def staged_dir(dest: Path) -> Iterator[Path]:
    """Yield an empty directory beside `dest`; on success it replaces `dest` (old one removed)."""
    check_replaceable(dest)
    staging = dest.parent / f".{dest.name}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        yield staging
        (staging / EXPORT_MARKER).write_text("written by gaia2-runner export; replaced whole by the next\n")
        old = dest.parent / f".{dest.name}.old-{os.getpid()}"
        if dest.exists():
            dest.rename(old)
        staging.rename(dest)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
