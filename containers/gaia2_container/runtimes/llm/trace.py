"""Append one Format A line per LLM call to $HOME/trace.jsonl (see TRACE_FORMAT.md)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_SECRET_QUERY_KEYS = {"key", "api_key", "apikey", "token", "access_token"}


def public_url(url: str) -> str:
    """The URL without credentials: no user info, no key-like query parameters."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k.lower() not in _SECRET_QUERY_KEYS])
    return urlunsplit((parts.scheme, host, parts.path, query, ""))


class Redactor:
    """Removes the API key from any text that leaves the process (trace, logs, error file)."""

    def __init__(self, secret: str | None) -> None:
        self.secret = secret if secret and len(secret) >= 4 else None

    def __call__(self, text: str) -> str:
        return text.replace(self.secret, "[redacted]") if self.secret and self.secret in text else text


class TraceWriter:
    def __init__(self, path: Path | None, redact: Redactor, provider: str, model: str) -> None:
        self.path = path
        self.redact = redact
        self.provider = provider
        self.model = model
        self._seq = 0
        self._lock = threading.Lock()

    def record(
        self,
        *,
        url: str,
        started: float,
        latency_ms: float,
        http_status: int | None,
        request: Any,
        raw_response: str,
        usage: dict[str, Any] | None = None,
        attempts: int = 1,
        error: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        if self.path is None:
            return
        with self._lock:
            entry: dict[str, Any] = {
                "seq": self._seq,
                "timestamp": round(started, 3),
                "type": "llm_call",
                "provider": self.provider,
                "model": self.model,
                "url": public_url(url),
                "latency_ms": round(latency_ms, 1),
                "http_status": http_status,
                "attempts": attempts,
                "request": request,
                "raw_response": raw_response,
                "usage": usage,
            }
            if error:
                entry["error"] = error
            entry.update(extra or {})  # e.g. text_tool_calls (TRACE_FORMAT.md)
            line = self.redact(json.dumps(entry, ensure_ascii=False))
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line + "\n")
            self._seq += 1


def now() -> float:
    return time.time()
