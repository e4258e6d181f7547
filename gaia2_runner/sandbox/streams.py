"""Reading what a container sends (its output archive, its log) under a byte cap, chunk by chunk.

The runner's memory must stay bounded whatever an agent prints: nothing from a container is
joined in memory past these caps.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

STREAM_CHUNK_BYTES = 1 << 20  # one read from the engine's answer
CONTAINER_LOG_MAX_BYTES = 16 << 20  # container.log: the daemon's own log lines (capped in the daemon too)
SMALL_ARCHIVE_MAX_BYTES = 64 << 20  # ContainerHandle.get_archive: a preflight result, an image check
# A run's output archive: the daemon's files (each capped, or bounded by the container's memory)
# plus tar headers; extraction stops at output/artifacts.py MAX_TOTAL_BYTES before it.
MAX_ARCHIVE_BYTES = 3 << 30


def truncation_marker(what: str, cap: int) -> str:
    """The line that says a capped text ends early."""
    return f"[gaia2-runner] {what} truncated: only its first {cap} bytes were kept"


@dataclass
class Capped:
    data: bytes
    truncated: bool


def read_capped(chunks: Iterable[bytes], cap: int) -> Capped:
    """At most `cap` bytes of `chunks`; stops reading once past it."""
    buf = bytearray()
    for chunk in chunks:
        buf += chunk[: cap + 1 - len(buf)]
        if len(buf) > cap:
            return Capped(bytes(buf[:cap]), True)
    return Capped(bytes(buf), False)


class ArchiveTooLarge(OSError):
    """The container sent more than the cap: what was read so far stands, the rest is dropped."""


class ChunkReader(io.RawIOBase):
    """A read-only file over an iterator of chunks, for tarfile's stream mode ("r|*"); raises
    ArchiveTooLarge once more than `cap` bytes arrived."""

    def __init__(self, chunks: Iterable[bytes], cap: int = MAX_ARCHIVE_BYTES) -> None:
        self._chunks: Iterator[bytes] = iter(chunks)
        self._pending = b""
        self._offset = 0  # within _pending
        self.cap = cap
        self.total = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while self._offset >= len(self._pending):
            try:
                self._pending, self._offset = next(self._chunks), 0
            except StopIteration:
                return 0
            self.total += len(self._pending)
            if self.total > self.cap:
                raise ArchiveTooLarge(f"the container's output is larger than {self.cap} bytes")
        size = min(len(buffer), len(self._pending) - self._offset)
        buffer[:size] = self._pending[self._offset : self._offset + size]
        self._offset += size
        return size
