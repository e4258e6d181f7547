"""Split streamed bodies into JSON documents: server-sent events and Gemini's JSON-array stream."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..safe_json import loads, raw_decode

MAX_WARNINGS = 10


@dataclass
class StreamEvent:
    event: str | None
    data: Any  # parsed JSON, or the raw string when it is not JSON (e.g. "[DONE]")


def looks_like_sse(body: str) -> bool:
    head = body.lstrip()[:200]
    return head.startswith(("data:", "event:", ":", "id:", "retry:"))


def parse_sse(body: str) -> tuple[list[StreamEvent], list[str]]:
    """Events in order; a data line that is not JSON is kept as text and reported."""
    events: list[StreamEvent] = []
    warnings: list[str] = []
    unreadable = 0
    name: str | None = None
    data_lines: list[str] = []

    def flush() -> None:
        nonlocal name, data_lines, unreadable
        if data_lines:
            text = "\n".join(data_lines)
            try:
                events.append(StreamEvent(name, loads(text)))
            except ValueError:
                if text.strip() != "[DONE]":
                    unreadable += 1
                    if len(warnings) < MAX_WARNINGS:
                        warnings.append(f"stream data is not JSON: {text[:120]}")
                events.append(StreamEvent(name, text))
        name, data_lines = None, []

    for line in body.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not line:
            flush()
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data_lines.append(line[5:].lstrip(" ") if line[5:6] == " " else line[5:])
    flush()
    if unreadable > len(warnings):
        warnings.append(f"… {unreadable - len(warnings)} more stream data lines are not JSON")
    return events, warnings


def parse_json_stream(body: str) -> list[Any]:
    """Gemini without `alt=sse` streams one JSON array, possibly cut off: read the complete items."""
    text = body.strip()
    try:
        doc = loads(text)
        return doc if isinstance(doc, list) else [doc]
    except ValueError:
        pass
    items: list[Any] = []
    pos = text.find("[") + 1 if text.startswith("[") else 0
    while pos < len(text):
        while pos < len(text) and text[pos] in " \r\n\t,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            item, pos = raw_decode(text, pos)
        except ValueError:
            break
        items.append(item)
    return items
