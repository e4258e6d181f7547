"""Whole-file writes that readers (and a kill -9) see as all-or-nothing: temp file, fsync, rename."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_bytes_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; results are meant to be shared
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def json_bytes(data: Any, indent: int | None = 2) -> bytes:
    """UTF-8 JSON; text that UTF-8 cannot hold (a lone surrogate from a hostile file) is escaped."""
    separators = None if indent else (",", ":")
    try:
        return json.dumps(data, indent=indent, ensure_ascii=False, default=str, separators=separators).encode(
            "utf-8"
        )
    except UnicodeEncodeError:
        return json.dumps(data, indent=indent, ensure_ascii=True, default=str, separators=separators).encode(
            "ascii"
        )


def write_json_atomic(path: Path, data: Any) -> None:
    write_bytes_atomic(path, json_bytes(data) + b"\n")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
