"""Container log streams as podman returns them: docker-style multiplexed frames or plain bytes."""

from __future__ import annotations

import struct
from typing import Iterator


def demux_logs(data: bytes | Iterator[bytes]) -> bytes:
    """Strip docker-style 8-byte stream headers when present; pass plain (tty) output through."""
    if not isinstance(data, (bytes, bytearray)):
        data = b"".join(data)
    out = bytearray()
    index = 0
    while index < len(data):
        header = data[index:index + 8]
        if len(header) < 8 or header[0] not in (0, 1, 2) or header[1:4] != b"\0\0\0":
            return bytes(data) if index == 0 else bytes(out + data[index:])
        (length,) = struct.unpack(">L", header[4:8])
        out += data[index + 8:index + 8 + length]
        index += 8 + length
    return bytes(out)
