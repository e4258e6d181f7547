"""Read trace.jsonl: one LLM call per line, any provider, raw or pre-parsed (TRACE_FORMAT.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .. import safe_io, safe_json
from ..values import as_int, as_num
from .detect import parse_body, parse_document
from .model import LlmCall, Message, ParsedResponse, ToolCall, Usage, tidy
from .offered import unknown_calls
from .requests import request_messages

__all__ = [
    "LlmCall",
    "Message",
    "ParsedResponse",
    "ToolCall",
    "Usage",
    "parse_body",
    "parse_document",
    "parse_entry",
    "parse_line",
    "read_trace",
    "request_messages",
]


def parse_line(line: str) -> LlmCall:
    """One trace line; never raises: what cannot be read is kept as raw text with a warning."""
    raw = line[: safe_io.RAW_SHOWN]
    try:
        entry = safe_json.loads(line)
    except ValueError as exc:
        return LlmCall(raw_line=raw, warnings=[f"line is not JSON: {str(exc)[:200]}"])
    if not isinstance(entry, dict):
        return LlmCall(raw_line=raw, warnings=["line is not a JSON object"])
    return parse_entry(entry, raw)


def parse_entry(entry: dict[str, Any], raw: str | None = None) -> LlmCall:
    """One recorded call (a trace line's object, or an expert sub-agent's `llm_call` event in
    events.jsonl, which has the same fields); never raises."""
    try:
        return tidy(_parse_entry(entry))
    except Exception as exc:  # a parser bug or a wrongly typed field costs one call, not the page
        return LlmCall(
            seq=as_int(entry.get("seq")), raw_line=raw, warnings=[f"could not parse this call: {exc!r}"[:300]]
        )


def _parse_entry(entry: dict[str, Any]) -> LlmCall:
    if entry.get("type") == "truncated":  # the relay's marker: the trace reached its size cap
        return LlmCall(
            seq=as_int(entry.get("seq")),
            timestamp=_num(entry.get("timestamp")),
            response=ParsedResponse(format="none"),
            warnings=[_str(entry.get("message")) or "the trace was cut here: later calls are not recorded"],
        )
    call = LlmCall(
        seq=as_int(entry.get("seq")),
        timestamp=_num(entry.get("timestamp")),
        url=_str(entry.get("url")),
        provider=_str(entry.get("provider")),
        model=_str(entry.get("model")),
        latency_ms=_num(entry.get("latency_ms")),
        http_status=as_int(entry.get("http_status")),
        attempts=as_int(entry.get("attempts")),
        error=_str(entry.get("error")),
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
    names = [c.name if isinstance(c.name, str) else "?" for c in call.response.tool_calls]
    call.unknown_tools = unknown_calls(entry.get("request"), names, entry.get("text_tool_calls"))
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


def read_trace(path: Path, warnings: list[str] | None = None, root: Path | None = None) -> list[LlmCall]:
    """Every call in a trace.jsonl (up to the caps in safe_io, with a warning past them); a
    missing file is an empty trace. Each call keeps only the request messages the previous call
    did not already have (`earlier_messages` counts the rest): a conversation is sent again in
    full with every call, and keeping every copy would make memory grow with its square."""
    warnings = [] if warnings is None else warnings
    root = Path(os.path.realpath(path.parent)) if root is None else root
    calls: list[LlmCall] = []
    previous = 0
    for number, line, too_long in safe_io.read_lines(
        root, path, warnings, max_bytes=safe_io.TRACE_BYTES, max_lines=safe_io.TRACE_LINES
    ):
        if too_long:
            calls.append(
                LlmCall(
                    raw_line=line,
                    warnings=[
                        f"line {number} is longer than {safe_io.size_text(safe_io.LINE_CAP)}: "
                        "not parsed, its start is shown"
                    ],
                )
            )
            previous = 0
            continue
        if not line.strip():
            continue
        call = parse_line(line)
        count = len(call.messages)
        if count >= previous:
            call.messages, call.earlier_messages = call.messages[previous:], previous
        previous = count
        calls.append(call)
    return calls


def _num(value: Any) -> float | None:
    return as_num(value)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
