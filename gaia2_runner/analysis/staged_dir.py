"""A directory written whole: built beside its place, then swapped in, so a re-export never leaves
files of an earlier one (a config no longer in the runs would be uploaded with the new rows) and an
interrupted export leaves the previous one intact.

A directory the user named (`--out`) is only replaced when it is empty or carries EXPORT_MARKER (an
earlier export's): a mistyped `--out` pointing at other files is refused, never deleted. The default
place (`<output-dir>/export_FORMAT/`) is the runner's own, marker or not (exports made before the
marker existed). A file or a symbolic link is never replaced.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gaia2_runner.errors import Gaia2Error

EXPORT_MARKER = ".gaia2-runner-export"  # in every directory export; left out of uploads


def check_replaceable(dest: Path, named: bool = True) -> None:
    """Refuse a `dest` this runner may not replace; `named`: the user gave it (`--out`)."""
    what = f"--out {dest}" if named else str(dest)
    if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
        raise Gaia2Error(
            f"{what}: exists and is not a directory (the export is a directory): choose another "
            "--out or move it away"
        )
    if named and dest.is_dir() and any(dest.iterdir()) and not (dest / EXPORT_MARKER).is_file():
        raise Gaia2Error(
            f"{what}: exists and holds files not written by an export (no {EXPORT_MARKER}; an "
            "export replaces its directory whole): choose another --out or remove it"
        )


@contextmanager
def staged_dir(dest: Path, named: bool = True) -> Iterator[Path]:
    """Yield an empty directory beside `dest`; on success it replaces `dest` (the old one removed)."""
    check_replaceable(dest, named)
    try:
        staging = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}.partial-"))
    except OSError as exc:
        raise Gaia2Error(
            f"{dest}: cannot write beside it in {dest.parent} ({exc.strerror or exc}): choose another --out"
        ) from None
    try:
        yield staging
        (staging / EXPORT_MARKER).write_text("written by gaia2-runner export; replaced whole by the next\n")
        _swap_in(staging, dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap_in(staging: Path, dest: Path) -> None:
    """Two renames; if the second fails, the previous export goes back where it was."""
    old = None
    if dest.exists():
        old = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}.old-"))
        dest.rename(old / "previous")
    try:
        staging.rename(dest)
    except OSError as exc:
        if old is not None:
            (old / "previous").rename(dest)
            shutil.rmtree(old, ignore_errors=True)
        raise Gaia2Error(
            f"{dest}: could not put the new export in place ({exc.strerror or exc}); the "
            "previous one is unchanged"
        ) from None
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
