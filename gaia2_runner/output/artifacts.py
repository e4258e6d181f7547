"""Unpack what a container produced into the output directory, without trusting it.

The archive comes from inside a container that runs an agent, so it is treated as hostile:
only regular files are written, only below the destination directory, and every byte goes through
the run's `Scrubber` (secret values become "[REDACTED]") on its way to the disk.
"""

from __future__ import annotations

import io
import os
import tarfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from gaia2_runner.output.scrub import Scrubber

MAX_TOTAL_BYTES = 2 * 1024**3  # stop unpacking after 2 GiB: a runaway agent must not fill the disk


@dataclass
class Extraction:
    written: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # member names refused, with the reason


def extract_output(
    archive: bytes | BinaryIO, dest: Path, top: str = "output", scrub: Scrubber | None = None
) -> Extraction:
    """Extract the regular files of a `get_archive` tar into `dest`.

    `archive` is the tar's bytes or a file to read it from once, front to back (tarfile's stream
    mode: a stream from the engine is extracted as it arrives, never held whole). A stream that breaks
    off or grows past its cap (sandbox/streams.py ChunkReader) keeps what was extracted before.
    Podman puts the requested directory itself at the top of the archive (`output/...`); that
    component is dropped so files land directly in `dest`. From a stopped container whose directory
    is a volume it sends the top as an entry named "" and the files as `/x`: after such a first
    entry, a name with one leading slash is relative to the top (anywhere else an absolute name is
    refused).
    """
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    scrub = scrub or Scrubber()
    result = Extraction()
    source = io.BytesIO(archive) if isinstance(archive, (bytes, bytearray)) else archive
    try:
        tar = tarfile.open(fileobj=source, mode="r|*")
    except tarfile.TarError as exc:
        result.skipped.append(f"<archive>: not a tar archive ({exc})")
        return result
    try:
        with tar:
            _extract_members(tar, root, top, scrub, result)
    except (tarfile.TarError, OSError, EOFError) as exc:
        result.skipped.append(f"<archive>: {exc}: the files after this point were not collected")
    return result


def _extract_members(tar: tarfile.TarFile, root: Path, top: str, scrub: Scrubber, result: Extraction) -> None:
    total = 0
    rooted = False  # podman's archive of a stopped container's volume: "", then "/x"
    for index, member in enumerate(tar):
        if index == 0 and member.name in ("", "/", ".") and member.isdir():
            rooted = True
            continue
        name = member.name
        if rooted and name.startswith("/") and not name.startswith("//"):
            name = name[1:]
        relative = _relative_name(name, top if not rooted else "")
        if relative is None:
            if not member.isdir():
                result.skipped.append(f"{member.name}: unsafe path")
            continue
        if relative == "":
            continue  # the top directory itself
        if not member.isfile():
            if not member.isdir():
                result.skipped.append(f"{member.name}: not a regular file")
            continue
        target = root.joinpath(*PurePosixPath(relative).parts)
        if not _inside(root, target):
            result.skipped.append(f"{member.name}: unsafe path")
            continue
        total += member.size
        if total > MAX_TOTAL_BYTES:
            result.skipped.append(f"{member.name}: output larger than {MAX_TOTAL_BYTES} bytes")
            break
        source = tar.extractfile(member)
        if source is None:
            result.skipped.append(f"{member.name}: unreadable")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if not _inside(root, target.parent.resolve()) or target.is_symlink():
            result.skipped.append(f"{member.name}: unsafe path")
            continue
        # O_NOFOLLOW: never write through a symlink, even one planted between checks.
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as out, source:
            scrub.copy(source, out)
        result.written.append(target)


def _relative_name(name: str, top: str) -> str | None:
    """The member's path below the top directory, or None when it is absolute or climbs out."""
    if name.startswith("/") or "\\" in name:
        return None
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    if top and parts and parts[0] == top:
        parts = parts[1:]
    return "/".join(parts)


def _inside(root: Path, path: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def write_text(dest: Path, name: str, text: str, scrub: Scrubber | None = None) -> Path:
    """Write a runner-side text artifact such as container.log, scrubbed of the run's secrets."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / name
    path.write_text((scrub or Scrubber()).text(text), encoding="utf-8", errors="replace")
    return path
