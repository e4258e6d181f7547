"""Scripted replies rendered in each provider's wire format, as one JSON body or an SSE stream.

A reply is {"text": str, "tool_calls": [{"name", "arguments", "id"?}]}; `usage` is computed by
the server. Streams cut text and arguments into small pieces so clients must reassemble them.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

CHUNK = 7


def pieces(text: str, size: int = CHUNK) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _calls(reply: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "id": c.get("id") or f"call_{uuid.uuid4().hex[:12]}",
            "name": c["name"],
            "arguments": c.get("arguments") or {},
        }
        for c in reply.get("tool_calls") or []
    ]


def sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    body = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {body}\n\n".encode()


# ---- OpenAI Chat Completions ------------------------------------------------------------------
def chat_json(reply: dict, model: str, usage: dict) -> dict:
    calls = _calls(reply)
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("text") or None}
    if calls:
        message["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
            }
            for c in calls
        ]
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:10]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": _chat_usage(usage),
    }


def _chat_usage(u: dict) -> dict:
    return {
        "prompt_tokens": u["input"],
        "completion_tokens": u["output"],
        "total_tokens": u["input"] + u["output"],
        "prompt_tokens_details": {"cached_tokens": u["cached"]},
    }


def chat_sse(reply: dict, model: str, usage: dict, include_usage: bool) -> Iterator[bytes]:
    base = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:10]}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def chunk(delta: dict, finish: str | None = None) -> bytes:
        return sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    yield chunk({"role": "assistant", "content": ""})
    if reply.get("text"):
        for part in pieces(reply["text"]):
            yield chunk({"content": part})
    calls = _calls(reply)
    for i, c in enumerate(calls):
        yield chunk(
            {
                "tool_calls": [
                    {
                        "index": i,
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": ""},
                    }
                ]
            }
        )
        for part in pieces(json.dumps(c["arguments"])):
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": part}}]})
    yield chunk({}, "tool_calls" if calls else "stop")
    if include_usage:
        yield sse({**base, "choices": [], "usage": _chat_usage(usage)})
    yield sse("[DONE]")


# ---- OpenAI Responses -------------------------------------------------------------------------
def _responses_items(reply: dict) -> list[dict]:
    items: list[dict] = []
    if reply.get("text"):
        items.append(
            {
                "type": "message",
                "id": f"msg_{uuid.uuid4().hex[:10]}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply["text"], "annotations": []}],
            }
        )
    for c in _calls(reply):
        items.append(
            {
                "type": "function_call",
                "id": f"fc_{uuid.uuid4().hex[:10]}",
                "call_id": c["id"],
                "name": c["name"],
                "arguments": json.dumps(c["arguments"]),
                "status": "completed",
            }
        )
    return items


def responses_json(reply: dict, model: str, usage: dict, items: list[dict] | None = None) -> dict:
    return {
        "id": f"resp_{uuid.uuid4().hex[:10]}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "model": model,
        "output": items if items is not None else _responses_items(reply),
        "usage": {
            "input_tokens": usage["input"],
            "input_tokens_details": {"cached_tokens": usage["cached"]},
            "output_tokens": usage["output"],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage["input"] + usage["output"],
        },
    }


def responses_sse(reply: dict, model: str, usage: dict) -> Iterator[bytes]:
    items = _responses_items(reply)
    final = responses_json(reply, model, usage, items)
    seq = iter(range(10_000))

    def ev(name: str, **data: Any) -> bytes:
        return sse({"type": name, "sequence_number": next(seq), **data}, event=name)

    yield ev("response.created", response={**final, "status": "in_progress", "output": [], "usage": None})
    for i, item in enumerate(items):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield ev(
                "response.output_item.added",
                output_index=i,
                item={**item, "status": "in_progress", "content": []},
            )
            yield ev(
                "response.content_part.added",
                item_id=item["id"],
                output_index=i,
                content_index=0,
                part={"type": "output_text", "text": "", "annotations": []},
            )
            for part in pieces(text):
                yield ev(
                    "response.output_text.delta",
                    item_id=item["id"],
                    output_index=i,
                    content_index=0,
                    delta=part,
                )
            yield ev(
                "response.output_text.done", item_id=item["id"], output_index=i, content_index=0, text=text
            )
            yield ev(
                "response.content_part.done",
                item_id=item["id"],
                output_index=i,
                content_index=0,
                part=item["content"][0],
            )
        else:
            yield ev(
                "response.output_item.added",
                output_index=i,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            for part in pieces(item["arguments"]):
                yield ev(
                    "response.function_call_arguments.delta", item_id=item["id"], output_index=i, delta=part
                )
            yield ev(
                "response.function_call_arguments.done",
                item_id=item["id"],
                output_index=i,
                arguments=item["arguments"],
            )
        yield ev("response.output_item.done", output_index=i, item=item)
    yield ev("response.completed", response=final)


# ---- Anthropic Messages -----------------------------------------------------------------------
def _anthropic_blocks(reply: dict) -> list[dict]:
    blocks: list[dict] = [{"type": "text", "text": reply["text"]}] if reply.get("text") else []
    blocks += [
        {"type": "tool_use", "id": "toolu_" + c["id"][5:], "name": c["name"], "input": c["arguments"]}
        for c in _calls(reply)
    ]
    return blocks


def anthropic_json(reply: dict, model: str, usage: dict, blocks: list[dict] | None = None) -> dict:
    blocks = blocks if blocks is not None else _anthropic_blocks(reply)
    return {
        "id": f"msg_{uuid.uuid4().hex[:12]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage["input"],
            "output_tokens": usage["output"],
            "cache_read_input_tokens": usage["cached"],
            "cache_creation_input_tokens": 0,
        },
    }


def anthropic_sse(reply: dict, model: str, usage: dict) -> Iterator[bytes]:
    final = anthropic_json(reply, model, usage)

    def ev(name: str, **data: Any) -> bytes:
        return sse({"type": name, **data}, event=name)

    start = {**final, "content": [], "stop_reason": None, "usage": {**final["usage"], "output_tokens": 1}}
    yield ev("message_start", message=start)
    yield ev("ping")
    for i, block in enumerate(final["content"]):
        if block["type"] == "text":
            yield ev("content_block_start", index=i, content_block={"type": "text", "text": ""})
            for part in pieces(block["text"]):
                yield ev("content_block_delta", index=i, delta={"type": "text_delta", "text": part})
        else:
            yield ev("content_block_start", index=i, content_block={**block, "input": {}})
            for part in pieces(json.dumps(block["input"])):
                yield ev(
                    "content_block_delta", index=i, delta={"type": "input_json_delta", "partial_json": part}
                )
        yield ev("content_block_stop", index=i)
    yield ev(
        "message_delta",
        delta={"stop_reason": final["stop_reason"], "stop_sequence": None},
        usage={"output_tokens": usage["output"]},
    )
    yield ev("message_stop")


# ---- Gemini generateContent -------------------------------------------------------------------
def _gemini_parts(reply: dict) -> list[dict]:
    parts: list[dict] = [{"text": reply["text"]}] if reply.get("text") else []
    parts += [{"functionCall": {"name": c["name"], "args": c["arguments"]}} for c in _calls(reply)]
    return parts


def _gemini_usage(u: dict) -> dict:
    return {
        "promptTokenCount": u["input"],
        "candidatesTokenCount": u["output"],
        "totalTokenCount": u["input"] + u["output"],
        "cachedContentTokenCount": u["cached"],
    }


def gemini_json(reply: dict, model: str, usage: dict) -> dict:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": _gemini_parts(reply)}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": _gemini_usage(usage),
        "modelVersion": model,
        "responseId": uuid.uuid4().hex[:16],
    }


def gemini_sse(reply: dict, model: str, usage: dict) -> Iterator[bytes]:
    parts = _gemini_parts(reply)
    chunks: list[list[dict]] = []
    for part in parts:
        if "text" in part:
            chunks += [[{"text": p}] for p in pieces(part["text"])]
        else:
            chunks.append([part])
    for i, chunk in enumerate(chunks):
        last = i == len(chunks) - 1
        doc: dict[str, Any] = {
            "candidates": [{"content": {"role": "model", "parts": chunk}, "index": 0}],
            "modelVersion": model,
        }
        if last:
            doc["candidates"][0]["finishReason"] = "STOP"
        doc["usageMetadata"] = _gemini_usage(usage) if last else {"promptTokenCount": usage["input"]}
        yield f"data: {json.dumps(doc)}\r\n\r\n".encode()


# ---- errors -----------------------------------------------------------------------------------
def error_body(route: str, status: int, message: str) -> dict:
    if route == "anthropic":
        kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    if route == "gemini":
        return {
            "error": {
                "code": status,
                "message": message,
                "status": "RESOURCE_EXHAUSTED" if status == 429 else "UNAVAILABLE",
            }
        }
    return {
        "error": {
            "message": message,
            "type": "rate_limit_exceeded" if status == 429 else "server_error",
            "code": status,
        }
    }
