"""Container log streams as podman returns them: docker-style multiplexed frames or plain bytes."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Protocol


class _Exited(Protocol):
    def logs(self) -> str: ...
    def exit_code(self) -> int | None: ...


def demux_logs(data: bytes | Iterator[bytes]) -> bytes:
    """Strip docker-style 8-byte stream headers when present; pass plain (tty) output through."""
    if not isinstance(data, (bytes, bytearray)):
        data = b"".join(data)
    out = bytearray()
    index = 0
    while index < len(data):
        header = data[index : index + 8]
        if len(header) < 8 or header[0] not in (0, 1, 2) or header[1:4] != b"\0\0\0":
            return bytes(data) if index == 0 else bytes(out + data[index:])
        (length,) = struct.unpack(">L", header[4:8])
        out += data[index + 8 : index + 8 + length]
        index += 8 + length
    return bytes(out)


def exit_text(handle: _Exited) -> str:
    """ "code N: <last log line>": what a container that ended early leaves to explain itself."""
    try:
        lines = [ln for ln in handle.logs().splitlines() if ln.strip()]
    except Exception:  # noqa: BLE001 - the container may be gone already: the code alone
        lines = []
    return " ".join((f"code {handle.exit_code()}" + (f": {lines[-1]}" if lines else "")).split())
