"""The relay's record of the agent's model traffic: one Format A `llm_call` line per request.

Written by the daemon (root) straight into /gaia2/output/trace.jsonl while the run goes, a line
as soon as each response has ended, so a crash loses nothing and the agent (uid 1000, no access
to /gaia2/output) can neither alter nor delete it. What is recorded (TRACE_FORMAT.md):

- the upstream URL without user info or key-like query parameters (`?key=` of Gemini);
- the request body as sent, parsed when it is JSON (headers are never recorded: they carry the
  keys), the response body as the client received it: a JSON document or the whole SSE stream;
- caps, since the agent decides how much it sends: each body is cut at BODY_CAP_BYTES (the line
  says which were cut), and once the file holds TOTAL_CAP_BYTES one marker line
  (`{"type": "truncated", …}`) is written and later calls are only counted.

Recording never fails the agent's call: every error here is logged and swallowed by the relay.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from ...jsonable import encodable
from ...runtimes.llm.trace import public_url
from ..agent.files import TRACE_CAP_BYTES

log = logging.getLogger("gaia2.relay_trace")

BODY_CAP_BYTES = 4 << 20  # per body: two of them stay below the viewer's 16 MB line limit
TOTAL_CAP_BYTES = TRACE_CAP_BYTES  # the same 64 MiB as a trace copied from the agent's home
_GEMINI_MODEL = re.compile(r"/models/([^/:?]+)")


@dataclass
class Capture:
    """One body as it passes through the relay: the first `cap` bytes, and how many there were."""

    cap: int = BODY_CAP_BYTES
    size: int = 0
    chunks: list[bytes] = field(default_factory=list)

    def add(self, chunk: bytes) -> None:
        room = self.cap - self.size
        if room > 0:
            self.chunks.append(chunk[:room])
        self.size += len(chunk)

    @property
    def data(self) -> bytes:
        return b"".join(self.chunks)

    @property
    def cut(self) -> bool:
        return self.size > self.cap


def model_of(body: Any, path: str) -> str | None:
    """The model named in the body (`"model"`), else in a Gemini path (`/models/<m>:…`)."""
    if isinstance(body, dict) and isinstance(body.get("model"), str) and body["model"]:
        return body["model"]
    match = _GEMINI_MODEL.search(path.split("?", 1)[0])
    return unquote(match.group(1)) if match else None


def decoded(data: bytes, encoding: str | None, cap: int = BODY_CAP_BYTES) -> tuple[bytes, str | None]:
    """A readable copy of a response body. The relay asks for identity encoding; a provider that
    compresses anyway (gzip, deflate) has its copy inflated here, at most `cap` bytes. Returns the
    bytes and a note when they are not the body itself."""
    encoding = (encoding or "").strip().lower()
    if encoding in ("", "identity"):
        return data, None
    if encoding in ("gzip", "x-gzip", "deflate"):
        try:
            inflater = zlib.decompressobj(zlib.MAX_WBITS | 32 if encoding != "deflate" else zlib.MAX_WBITS)
            return inflater.decompress(data, cap), f"decoded from content-encoding {encoding}"
        except zlib.error as exc:
            return b"", f"content-encoding {encoding} could not be decoded: {exc}"
    return b"", f"{len(data)} bytes of content-encoding {encoding}: not decoded"


def _request_field(data: bytes, cut: bool) -> Any:
    """The parsed JSON body, or its text when it is not JSON or was cut; None when empty."""
    if not data:
        return None
    text = data.decode("utf-8", errors="replace")
    if not cut:
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text


class RelayTrace:
    """Appends the relay's calls to `path`; thread-safe (one relay thread per request)."""

    def __init__(self, path: Path, provider: str | None, total_cap: int = TOTAL_CAP_BYTES) -> None:
        self.path = path
        self.provider = provider or None
        self.total_cap = total_cap
        self.lines = 0  # llm_call lines written
        self.dropped = 0  # calls not written because the total cap was reached
        self._size = 0
        self._seq = 0
        self._fh: Any = None
        self._closed = False
        self._lock = threading.Lock()

    def record(
        self,
        *,
        url: str,
        path: str,
        started: float,
        latency_ms: float,
        http_status: int | None,
        request: Capture,
        response: Capture,
        content_encoding: str | None = None,
        error: str | None = None,
        sim: dict[str, Any] | None = None,
    ) -> None:
        body = _request_field(request.data, request.cut)
        raw, note = decoded(response.data, content_encoding)
        entry: dict[str, Any] = {
            "type": "llm_call",
            "timestamp": round(started, 3),
            "url": public_url(url),
            "latency_ms": round(latency_ms, 1),
            "http_status": http_status,
            "provider": self.provider,
            "model": model_of(body, path),
            "request": body,
            "raw_response": raw.decode("utf-8", errors="replace"),
        }
        cut = [name for name, c in (("request", request), ("raw_response", response)) if c.cut]
        if cut:
            entry["truncated"] = cut
            entry["body_bytes"] = {"request": request.size, "raw_response": response.size}
        if note:
            entry["response_note"] = note
        if error:
            entry["error"] = error
        entry.update(
            sim or {}
        )  # sim_started_at, sim_duration_s: the simulated clock's view (clock/generation.py)
        self._append(entry)

    def _append(self, entry: dict[str, Any]) -> None:
        with self._lock:
            if self._closed:
                return
            # The agent's request may hold lone surrogates: U+FFFD, as everywhere (jsonable.py).
            line = encodable(json.dumps({"seq": self._seq, **entry}, ensure_ascii=False)) + "\n"
            data = line.encode("utf-8")
            admitted = self._admit(len(data))
            if admitted is None:
                return
            if not admitted:
                marker = {
                    "seq": self._seq,
                    "type": "truncated",
                    "timestamp": round(time.time(), 3),
                    "message": self.cap_message(),
                }
                data = (json.dumps(marker) + "\n").encode()
            self._seq += 1
            if self._fh is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fh = self.path.open("ab")
            self._fh.write(data)
            self._fh.flush()

    def _admit(self, size: int) -> bool | None:
        """Under the lock, for a line of `size` bytes: True (write it), False (it would pass the
        cap: write the one marker instead), None (the cap was reached earlier: drop it)."""
        if self._size < 0:
            self.dropped += 1
            return None
        if self._size + size > self.total_cap:
            self._size = -1
            self.dropped += 1
            log.warning("relay trace: %s bytes reached, later calls are not recorded", self.total_cap)
            return False
        self._size += size
        self.lines += 1
        return True

    def cap_message(self) -> str:
        return f"the relay's trace reached {self.total_cap} bytes: later calls are not recorded"

    def close(self) -> int:
        """Stop recording (later calls are ignored); returns the number of lines written (the
        cap's marker included): 0 means no trace file was created."""
        with self._lock:
            self._closed = True
            if self._fh is not None:
                self._fh.close()
            if self.dropped:
                log.warning("relay trace: %d calls past the cap were not recorded", self.dropped)
            return self._seq
