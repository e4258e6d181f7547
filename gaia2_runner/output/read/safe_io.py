"""Every file read from an output directory, and every page the viewer writes into one, goes through here.

Output directories hold files an agent wrote (trace.jsonl) and can hold anything else someone put
there, so: nothing is read or written outside the output root, no symbolic link is followed when
reading a file (it is skipped with a warning), nothing but regular files is opened (a FIFO would
block), and no more than a cap is read from any file (a visible "truncated" warning says so).
Writes go to a fresh temporary file that replaces the target, so a link planted at the target or
at a predictable temporary name cannot redirect them.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from . import safe_json

MB = 1 << 20
JSON_CAP = 8 * MB  # result.json, daemon_status.json, summary.json, fingerprint …
RUN_CONFIG_CAP = 64 * MB  # lists every scenario of a dataset run
CACHE_CAP = 256 * MB  # the viewer's own row cache (hundreds of bytes per scenario)
TEXT_CAP = 1 * MB  # agent_response.txt
EVENTS_BYTES, EVENTS_LINES = 64 * MB, 50_000
TRACE_BYTES, TRACE_LINES = 64 * MB, 10_000
LINE_CAP = 16 * MB  # one JSON line (a long conversation's request body)
RAW_SHOWN = 64 * 1024  # raw text kept for a page when a file or line cannot be parsed
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)


class OutsideRoot(PermissionError):
    """A write that would land outside the output directory."""


def size_text(n: int) -> str:
    return f"{n / MB:.1f} MB" if n >= MB else f"{n:,} bytes"


def within(root: Path | str, real: str) -> bool:
    """Whether the already-resolved path `real` is `root` or lies under it."""
    root = str(root)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def output_root(path: str | Path) -> Path:
    """The one way readers name an output directory: ~ expanded, made absolute, links resolved.
    Containment checks compare resolved paths, so a relative, linked or ~ path given as is would
    make every scenario directory look like it lies outside the root."""
    return Path(path).expanduser().resolve()


def real_dir(root: Path, directory: Path) -> bool:
    """A directory reached from `root` without any symbolic link (root itself is resolved)."""
    try:
        return (
            stat.S_ISDIR(os.lstat(directory).st_mode)
            and os.path.realpath(directory) == str(directory)
            and within(root, str(directory))
        )
    except OSError:
        return False


def open_file(root: Path, path: Path, label: str | None = None) -> tuple[BinaryIO | None, str]:
    """(file, "") or (None, why not): "" when simply missing."""
    label = label or path.name
    if not within(root, os.path.realpath(path.parent)):
        return None, f"{label} is outside the output directory (through a link): not read"
    try:
        fd = os.open(path, _FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return None, ""
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, f"{label} is a symbolic link: not followed"
        return None, f"{label} could not be read: {exc.strerror}"
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        return None, f"{label} could not be read: {exc.strerror}"
    if not stat.S_ISREG(mode):
        os.close(fd)
        return None, f"{label} is not a regular file: not read"
    return os.fdopen(fd, "rb"), ""


@dataclass
class Text:
    text: str | None  # None: missing or refused
    warning: str = ""
    truncated: bool = False


def read_text(root: Path, path: Path, cap: int, label: str | None = None) -> Text:
    """At most `cap` bytes, decoded as UTF-8 with replacement characters."""
    label = label or path.name
    handle, warning = open_file(root, path, label)
    if handle is None:
        return Text(None, warning)
    with handle:
        size = os.fstat(handle.fileno()).st_size
        data = handle.read(min(cap, size) + 1)  # read(cap + 1) would allocate the whole cap up front
        while len(data) <= cap and (more := handle.read(min(MB, cap + 1 - len(data)))):
            data += more  # the file grew since fstat
    if len(data) <= cap:
        return Text(data.decode("utf-8", errors="replace"))
    return Text(
        data[:cap].decode("utf-8", errors="replace"),
        f"{label} is {size_text(max(size, len(data)))}: only the first {size_text(cap)} were read (truncated)",
        True,
    )


@dataclass
class Doc:
    value: Any = None  # the parsed JSON (bounded, see safe_json), None when unreadable
    raw: str | None = None  # the text, clipped, when it was there but could not be parsed
    warning: str = ""
    unusable: bool = False  # there, not empty, and not readable as JSON (a link, cut off, invalid …)


def read_json(root: Path, path: Path, cap: int | None = None, label: str | None = None) -> Doc:
    label = label or path.name
    text = read_text(root, path, JSON_CAP if cap is None else cap, label)
    if text.text is None:
        return Doc(warning=text.warning, unusable=bool(text.warning))
    if text.truncated:
        return Doc(raw=text.text[:RAW_SHOWN], warning=text.warning + "; not parsed", unusable=True)
    try:
        return Doc(safe_json.loads(text.text))
    except ValueError as exc:
        if not text.text.strip():
            return Doc(warning=f"{label} is empty")
        return Doc(
            raw=text.text[:RAW_SHOWN],
            warning=f"{label} is not valid JSON ({str(exc)[:200]}): shown raw",
            unusable=True,
        )


def read_lines(
    root: Path,
    path: Path,
    warnings: list[str],
    *,
    max_bytes: int,
    max_lines: int,
    max_line: int | None = None,
    label: str | None = None,
) -> Iterator[tuple[int, str, bool]]:
    """(line number, text, too_long) for each line; a line over `max_line` bytes comes cut to
    RAW_SHOWN with too_long set. Reading stops at `max_bytes` or `max_lines` with a warning."""
    label = label or path.name
    max_line = LINE_CAP if max_line is None else max_line
    handle, warning = open_file(root, path, label)
    if handle is None:
        if warning:
            warnings.append(warning)
        return
    with handle:
        total = number = 0
        while True:
            if number >= max_lines or total >= max_bytes:
                if handle.read(1):
                    size = os.fstat(handle.fileno()).st_size
                    limit = f"{max_lines:,} lines" if number >= max_lines else size_text(max_bytes)
                    warnings.append(
                        f"{label} is {size_text(size)}: only its first {limit} were read (truncated)"
                    )
                return
            line = handle.readline(max_line + 1)
            if not line:
                return
            number += 1
            total += len(line)
            if len(line) > max_line and not line.endswith(b"\n"):
                head = line[:RAW_SHOWN]
                while line and not line.endswith(b"\n") and total < max_bytes:
                    line = handle.readline(MB)
                    total += len(line)
                yield number, head.decode("utf-8", errors="replace"), True
            else:
                yield number, line.rstrip(b"\r\n").decode("utf-8", errors="replace"), False


def list_files(root: Path, directory: Path, warnings: list[str], limit: int = 500) -> list[tuple[str, int]]:
    """(name, size) of the regular files in `directory`; links are skipped with a warning."""
    if not real_dir(root, directory):
        return []
    out: list[tuple[str, int]] = []
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        try:
            if entry.is_symlink():
                warnings.append(f"{entry.name} is a symbolic link: not followed")
            elif entry.is_file(follow_symlinks=False):
                out.append((entry.name, entry.stat(follow_symlinks=False).st_size))
        except OSError:
            continue
    if len(out) > limit:
        warnings.append(f"{len(out):,} files in this directory: only the first {limit} are listed")
        out = out[:limit]
    return out


def write_file(root: Path, path: Path, data: bytes) -> bool:
    """Replace `path` with `data` atomically; False (and no write) when it already holds it."""
    parent = os.path.realpath(path.parent)
    if not within(root, parent):
        raise OutsideRoot(errno.EACCES, "refusing to write outside the output directory", str(path))
    target = os.path.join(parent, path.name)
    if _holds(target, data):
        return False
    # An unpredictable name, created exclusively and without following links; removed again on
    # any failure, Ctrl-C included (the name is known before the file exists).
    tmp = os.path.join(parent, f".{path.name}.{secrets.token_hex(6)}.viewer-tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    return True


def _holds(target: str, data: bytes) -> bool:
    try:
        st = os.lstat(target)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
            return False
        fd = os.open(target, _FLAGS)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as handle:
        return handle.read(len(data) + 1) == data


def own_dir(root: Path, directory: Path) -> Path:
    """A directory of the viewer's own (`_viewer/`): whatever else holds its name is replaced."""
    if os.path.lexists(directory) and not real_dir(root, directory):
        if os.path.isdir(directory) and not os.path.islink(directory):
            raise OutsideRoot(errno.EACCES, "directory is outside the output directory", str(directory))
        os.unlink(directory)  # a symbolic link or a file squatting on the name
    directory.mkdir(exist_ok=True)
    if not real_dir(root, directory):
        raise OutsideRoot(errno.EACCES, "directory is outside the output directory", str(directory))
    return directory
