"""Read trace.jsonl: one LLM call per line, any provider, raw or pre-parsed (TRACE_FORMAT.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .detect import parse_body, parse_document
from .model import LlmCall, Message, ParsedResponse, ToolCall, Usage, as_int
from .requests import request_messages

__all__ = ["LlmCall", "Message", "ParsedResponse", "ToolCall", "Usage", "parse_body", "parse_document",
           "parse_line", "read_trace", "request_messages"]


def parse_line(line: str) -> LlmCall:
    """One trace line; never raises: what cannot be read is kept as raw text with a warning."""
    try:
        entry = json.loads(line)
    except ValueError as exc:
        return LlmCall(raw_line=line, warnings=[f"line is not JSON: {exc}"])
    if not isinstance(entry, dict):
        return LlmCall(raw_line=line, warnings=["line is not a JSON object"])
    try:
        return _parse_entry(entry)
    except Exception as exc:  # a parser bug must cost one call, not the page
        return LlmCall(seq=as_int(entry.get("seq")), raw_line=line, warnings=[f"could not parse this call: {exc!r}"])


def _parse_entry(entry: dict[str, Any]) -> LlmCall:
    call = LlmCall(
        seq=as_int(entry.get("seq")), timestamp=_num(entry.get("timestamp")), url=_str(entry.get("url")),
        provider=_str(entry.get("provider")), model=_str(entry.get("model")), latency_ms=_num(entry.get("latency_ms")),
        http_status=as_int(entry.get("http_status")), attempts=as_int(entry.get("attempts")), error=_str(entry.get("error")),
    )
    call.messages, call.tool_count = request_messages(entry.get("request"))
    raw, response = entry.get("raw_response"), entry.get("response")
    if isinstance(raw, str):
        call.response = parse_body(raw)
        if call.response.warnings or (call.response.format == "unknown"):
            call.raw_response = raw
    elif isinstance(response, dict):
        call.response = parse_document(response)
    elif raw is None and response is None:
        call.response = ParsedResponse(format="none")
    else:
        call.response = ParsedResponse(warnings=["response is neither a string body nor an object"])
    _fill_usage(call.response.usage, entry.get("usage"))
    call.model = call.model or call.response.model
    call.warnings.extend(call.response.warnings)
    return call


def _fill_usage(usage: Usage, recorded: Any) -> None:
    """The response's own counts win; the runtime's `usage` field fills what the body lacked."""
    if not isinstance(recorded, dict):
        return
    if usage.input is None:
        usage.input = as_int(recorded.get("input_tokens"))
    if usage.output is None:
        usage.output = as_int(recorded.get("output_tokens"))
    if usage.cache_read is None:
        usage.cache_read = as_int(recorded.get("cache_read_tokens"))


def read_trace(path: Path) -> list[LlmCall]:
    """Every call in a trace.jsonl; a missing file is an empty trace."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, IsADirectoryError):
        return []
    return [parse_line(line) for line in text.splitlines() if line.strip()]


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
