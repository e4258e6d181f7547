"""Anthropic Messages API: a JSON `message`, or its SSE stream of content-block events."""

from __future__ import annotations

from typing import Any

from .model import ParsedResponse, ToolCall, Usage, add, as_int, loads_maybe

FORMAT = "anthropic-messages"


def usage_of(u: Any) -> Usage:
    """Anthropic's input_tokens leaves out cached tokens; add them so `input` means the whole prompt."""
    if not isinstance(u, dict):
        return Usage()
    read, write = as_int(u.get("cache_read_input_tokens")), as_int(u.get("cache_creation_input_tokens"))
    return Usage(input=add(as_int(u.get("input_tokens")), read, write), output=as_int(u.get("output_tokens")),
                 cache_read=read, cache_write=write)


def _blocks_into(blocks: list[Any], out: ParsedResponse) -> None:
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            out.text += block.get("text") or ""
        elif kind == "thinking":
            out.reasoning.append(block.get("thinking") or "")
        elif kind == "redacted_thinking":
            out.reasoning.append("[redacted thinking]")
        elif kind in ("tool_use", "server_tool_use"):
            out.tool_calls.append(ToolCall(block.get("name") or "?", block.get("input"), block.get("id")))


def from_json(doc: dict[str, Any]) -> ParsedResponse:
    out = ParsedResponse(format=FORMAT, model=doc.get("model"), usage=usage_of(doc.get("usage")),
                         finish_reason=doc.get("stop_reason"))
    if doc.get("type") == "error":
        err = doc.get("error") or {}
        out.error = str(err.get("message") if isinstance(err, dict) else err)
    _blocks_into(doc.get("content") or [], out)
    return out


def from_events(events: list[Any]) -> ParsedResponse:
    out = ParsedResponse(format=FORMAT + " (stream)")
    blocks: dict[int, dict[str, Any]] = {}
    usage: dict[str, Any] = {}
    for ev in events:
        data = ev.data
        if not isinstance(data, dict):
            continue
        kind = data.get("type") or ev.event
        if kind == "message_start":
            message = data.get("message") or {}
            out.model = message.get("model")
            usage.update(message.get("usage") or {})
        elif kind == "content_block_start":
            block = dict(data.get("content_block") or {})
            if block.get("type") in ("tool_use", "server_tool_use"):
                block["partial_json"] = ""
            blocks[as_int(data.get("index")) or 0] = block
        elif kind == "content_block_delta":
            block = blocks.setdefault(as_int(data.get("index")) or 0, {"type": "text", "text": ""})
            delta = data.get("delta") or {}
            dtype = delta.get("type")
            if dtype == "text_delta":
                block["text"] = (block.get("text") or "") + (delta.get("text") or "")
            elif dtype == "thinking_delta":
                block["thinking"] = (block.get("thinking") or "") + (delta.get("thinking") or "")
            elif dtype == "input_json_delta":
                block["partial_json"] = (block.get("partial_json") or "") + (delta.get("partial_json") or "")
        elif kind == "message_delta":
            out.finish_reason = (data.get("delta") or {}).get("stop_reason") or out.finish_reason
            usage.update({k: v for k, v in (data.get("usage") or {}).items() if v is not None})
        elif kind == "error":
            err = data.get("error") or {}
            out.error = str(err.get("message") if isinstance(err, dict) else err)
    for _, block in sorted(blocks.items()):
        if "partial_json" in block:
            raw = block.pop("partial_json")
            block["input"] = loads_maybe(raw) if raw else block.get("input") or {}
            if isinstance(block["input"], str):
                out.warnings.append(f"tool input is not valid JSON: {raw[:80]}")
    _blocks_into([b for _, b in sorted(blocks.items())], out)
    out.usage = usage_of(usage)
    return out

