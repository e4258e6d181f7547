"""Replace secret values with "[REDACTED]" in everything the runner writes on the host.

The last line of defence: the container is built so that the agent cannot reach the judge's key
and the daemon never follows the agent's links, but the agent holds its own key and can print it,
pass it as a tool argument or put it in its trace. Every artifact, log and result therefore goes
through one `Scrubber` holding the run's secret values before it touches the disk.

A value is matched as written and in its JSON-escaped forms (events.jsonl, traces), as text and as
UTF-8 bytes. Values shorter than MIN_SECRET_LEN are ignored: scrubbing "1" or "true" would destroy
the output and protect nothing. An agent that encodes a key (base64, reversed, …) is not caught:
scrubbing guards against accidents and plain copies, not against a determined exfiltration.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import IO, Any

REDACTED = "[REDACTED]"
MIN_SECRET_LEN = 8
CHUNK = 1 << 20


def _variants(value: str) -> set[str]:
    """The value and how JSON writers may have escaped it."""
    return {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}


class Scrubber:
    """Built once per run from its secret values; cheap to call when there are none."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        forms = sorted(
            {v for s in secrets if s and len(s) >= MIN_SECRET_LEN for v in _variants(s)},
            key=len,
            reverse=True,
        )  # longest first: a secret containing another wins
        self._text = re.compile("|".join(map(re.escape, forms))) if forms else None
        raw = sorted({f.encode("utf-8") for f in forms}, key=len, reverse=True)
        self._bytes = re.compile(b"|".join(map(re.escape, raw))) if raw else None
        self._longest = max((len(b) for b in raw), default=0)

    def __bool__(self) -> bool:
        return self._text is not None

    def text(self, value: str) -> str:
        return self._text.sub(REDACTED, value) if self._text else value

    def data(self, value: bytes) -> bytes:
        return self._bytes.sub(REDACTED.encode(), value) if self._bytes else value

    def value(self, obj: Any) -> Any:
        """A JSON-like value with every string (keys included) scrubbed."""
        if not self or obj is None or isinstance(obj, (bool, int, float)):
            return obj
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, dict):
            return {self.value(k): self.value(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self.value(v) for v in obj]
        return obj

    def copy(self, source: IO[bytes], out: IO[bytes], chunk_size: int = CHUNK) -> int:
        """Stream `source` to `out` scrubbed, in bounded memory; returns the bytes read.

        A secret split across two reads is still found: the last `longest - 1` bytes of each
        buffer wait for the next read unless a match already covers them."""
        read = 0
        if self._bytes is None:
            while chunk := source.read(chunk_size):
                out.write(chunk)
                read += len(chunk)
            return read
        pending = b""
        keep = self._longest - 1
        while True:
            chunk = source.read(chunk_size)
            read += len(chunk)
            buf = pending + chunk
            # Every match starting before `safe` lies wholly in buf, so it is the match a pass over
            # the whole stream would find there; at the end of the stream everything is safe.
            safe = len(buf) - keep if chunk else len(buf)
            pos = 0
            for match in self._bytes.finditer(buf):
                if match.start() >= safe:
                    break
                out.write(buf[pos : match.start()])
                out.write(REDACTED.encode())
                pos = match.end()
            cut = max(pos, safe)
            out.write(buf[pos:cut])
            pending = buf[cut:]
            if not chunk:
                return read
