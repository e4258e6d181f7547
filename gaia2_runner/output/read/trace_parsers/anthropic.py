"""Anthropic Messages API: a JSON `message`, or its SSE stream of content-block events."""

from __future__ import annotations

from typing import Any

from ..values import add, as_int, loads_maybe
from .model import ParsedResponse, ToolCall, Usage

FORMAT = "anthropic-messages"


def usage_of(u: Any) -> Usage:
    """Anthropic's input_tokens leaves out cached tokens; add them so `input` means the whole prompt."""
    if not isinstance(u, dict):
        return Usage()
    read, write = as_int(u.get("cache_read_input_tokens")), as_int(u.get("cache_creation_input_tokens"))
    return Usage(
        input=add(as_int(u.get("input_tokens")), read, write),
        output=as_int(u.get("output_tokens")),
        cache_read=read,
        cache_write=write,
    )


def split_blocks(blocks: list[Any]) -> tuple[list[str], list[str], list[ToolCall], list[dict[str, Any]]]:
    """Content blocks as (texts, reasoning, tool calls, the other blocks in order): one reading of
    Anthropic's blocks for responses and for the messages a request replays."""
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[ToolCall] = []
    others: list[dict[str, Any]] = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            texts.append(block.get("text") or "")
        elif kind == "thinking":
            reasoning.append(block.get("thinking") or "")
        elif kind == "redacted_thinking":
            reasoning.append("[redacted thinking]")
        elif kind in ("tool_use", "server_tool_use"):
            calls.append(ToolCall(block.get("name") or "?", block.get("input"), block.get("id")))
        else:
            others.append(block)
    return texts, reasoning, calls, others


def _blocks_into(blocks: list[Any], out: ParsedResponse) -> None:
    texts, reasoning, calls, _ = split_blocks(blocks)
    out.reasoning.extend(reasoning)
    out.tool_calls.extend(calls)
    out.text = "".join(t if isinstance(t, str) else str(t) for t in [out.text, *texts])


def from_json(doc: dict[str, Any]) -> ParsedResponse:
    out = ParsedResponse(
        format=FORMAT,
        model=doc.get("model"),
        usage=usage_of(doc.get("usage")),
        finish_reason=doc.get("stop_reason"),
    )
    if doc.get("type") == "error":
        err = doc.get("error") or {}
        out.error = str(err.get("message") if isinstance(err, dict) else err)
    content = doc.get("content")
    _blocks_into(content if isinstance(content, list) else [], out)
    return out


def from_events(events: list[Any]) -> ParsedResponse:
    out = ParsedResponse(format=FORMAT + " (stream)")
    blocks: dict[int, dict[str, Any]] = {}
    pieces: dict[int, dict[str, list[str]]] = {}  # deltas per block and field, joined once at the end
    usage: dict[str, Any] = {}
    for ev in events:
        data = ev.data
        if not isinstance(data, dict):
            continue
        kind = data.get("type") or ev.event
        if kind == "message_start":
            message = _dict(data.get("message"))
            out.model = message.get("model")
            usage.update(_dict(message.get("usage")))
        elif kind == "content_block_start":
            index = as_int(data.get("index")) or 0
            blocks[index] = dict(_dict(data.get("content_block")))
            pieces[index] = {}
        elif kind == "content_block_delta":
            index = as_int(data.get("index")) or 0
            blocks.setdefault(index, {"type": "text", "text": ""})
            delta = _dict(data.get("delta"))
            field = _DELTA_FIELDS.get(delta.get("type", ""))
            if field:
                value = delta.get(field)
                pieces.setdefault(index, {}).setdefault(field, []).append(
                    value if isinstance(value, str) else ""
                )
        elif kind == "message_delta":
            out.finish_reason = _dict(data.get("delta")).get("stop_reason") or out.finish_reason
            usage.update({k: v for k, v in _dict(data.get("usage")).items() if v is not None})
        elif kind == "error":
            err = data.get("error") or {}
            out.error = str(err.get("message") if isinstance(err, dict) else err)
    for index, block in sorted(blocks.items()):
        parts = pieces.get(index, {})
        for field in ("text", "thinking"):
            if field in parts:
                block[field] = str(block.get(field) or "") + "".join(parts[field])
        if block.get("type") in ("tool_use", "server_tool_use"):
            raw = "".join(parts.get("partial_json", []))
            block["input"] = loads_maybe(raw) if raw else block.get("input") or {}
            if isinstance(block["input"], str):
                out.warnings.append(f"tool input is not valid JSON: {raw[:80]}")
    _blocks_into([b for _, b in sorted(blocks.items())], out)
    out.usage = usage_of(usage)
    return out


_DELTA_FIELDS = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
