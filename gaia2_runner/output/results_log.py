"""`results.jsonl`: one JSON object per finished scenario run, streamed as runs finish.

Each record goes out in a single `os.write` on an O_APPEND descriptor, under a lock, so lines from
concurrent workers never interleave and a kill -9 can at worst leave one unterminated last line.
Readers should skip such a line; the next writer cuts it off before appending. At the end of a run
the file is rebuilt from the result.json files, which stay the source of truth.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gaia2_runner.output.atomic import json_bytes, write_bytes_atomic


def encode(record: dict[str, Any]) -> bytes:
    """One record as one line: compact JSON, newline-terminated, no raw newlines inside."""
    return json_bytes(record, indent=None) + b"\n"


class ResultsLog:
    """Appends records to one results.jsonl; safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        drop_partial_tail(self.path)

    def append(self, record: dict[str, Any]) -> None:
        data = encode(record)
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                written = os.write(fd, data)
                if written != len(data):  # only a full disk does this; keep the file line-aligned
                    os.ftruncate(fd, os.fstat(fd).st_size - written)
                    raise OSError(f"short write to {self.path}: {written} of {len(data)} bytes")
            finally:
                os.close(fd)


def drop_partial_tail(path: Path) -> None:
    """Cut an unterminated last line (left by a killed writer) so the next append starts clean."""
    try:
        with open(path, "rb+") as fh:
            size = fh.seek(0, os.SEEK_END)
            if size == 0:
                return
            fh.seek(size - 1)
            if fh.read(1) == b"\n":
                return
            end, chunk = size, 65536
            while end > 0:  # scan backwards for the last newline
                start = max(0, end - chunk)
                fh.seek(start)
                block = fh.read(end - start)
                cut = block.rfind(b"\n")
                if cut >= 0:
                    fh.truncate(start + cut + 1)
                    return
                end = start
            fh.truncate(0)
    except FileNotFoundError:
        return


def rewrite(path: str | Path, records: Iterable[dict[str, Any]]) -> None:
    """Replace the file with `records` in one rename, so readers see the old or the new file."""
    write_bytes_atomic(Path(path), b"".join(encode(record) for record in records))
