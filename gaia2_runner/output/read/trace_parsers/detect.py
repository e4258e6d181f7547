"""Decide which provider wrote a response body, from its content (the URL is only a hint)."""

from __future__ import annotations

from typing import Any

from ..safe_json import loads
from ..values import as_int, loads_maybe
from . import anthropic, gemini, openai_chat, openai_responses
from .model import ParsedResponse, ToolCall, Usage
from .sse import looks_like_sse, parse_json_stream, parse_sse

_ANTHROPIC_EVENTS = {
    "message_start",
    "content_block_start",
    "content_block_delta",
    "message_delta",
    "message_stop",
    "ping",
}


def parse_body(body: str) -> ParsedResponse:
    """A raw HTTP body: JSON document, SSE stream or Gemini's JSON-array stream."""
    text = body.strip()
    if not text:
        return ParsedResponse(warnings=["empty response body"])
    if looks_like_sse(text):
        events, warnings = parse_sse(text)
        out = parse_events(events)
        out.warnings[:0] = warnings
        return out
    if text.startswith("["):
        chunks = parse_json_stream(text)
        if chunks and all(isinstance(c, dict) for c in chunks):
            return gemini.from_chunks(chunks)
        return ParsedResponse(warnings=["JSON array that is not a Gemini stream"])
    try:
        doc = loads(text)
    except ValueError as exc:
        return ParsedResponse(warnings=[f"response body is neither JSON nor SSE ({str(exc)[:200]})"])
    if not isinstance(doc, dict):
        return ParsedResponse(warnings=["response body is JSON but not an object"])
    return parse_document(doc)


def parse_events(events: list[Any]) -> ParsedResponse:
    for ev in events:
        data = ev.data
        if not isinstance(data, dict):
            continue
        kind = str(data.get("type") or ev.event or "")
        if kind.startswith("response."):
            return openai_responses.from_events(events)
        if kind in _ANTHROPIC_EVENTS or ev.event in _ANTHROPIC_EVENTS:
            return anthropic.from_events(events)
        if "choices" in data or data.get("object") == "chat.completion.chunk":
            return openai_chat.from_events(events)
        if "candidates" in data or "usageMetadata" in data:
            return gemini.from_events(events)
        if "error" in data:
            return _error_only(data)
    return ParsedResponse(warnings=["stream holds no event of a known provider"])


def parse_document(doc: dict[str, Any]) -> ParsedResponse:
    """One JSON response of any provider, or the runtime's own pre-parsed shape."""
    if "choices" in doc:
        return openai_chat.from_json(doc)
    if doc.get("object") == "response" or isinstance(doc.get("output"), list):
        return openai_responses.from_json(doc)
    if doc.get("type") == "error" or (doc.get("type") == "message" and isinstance(doc.get("content"), list)):
        return anthropic.from_json(doc)
    if "candidates" in doc or "usageMetadata" in doc or "promptFeedback" in doc:
        return gemini.from_json(doc)
    if "error" in doc:
        return _error_only(doc)
    if any(k in doc for k in ("text", "tool_calls", "reasoning")):
        return _normalised(doc)
    other = _not_an_answer(doc)
    if other is not None:
        return ParsedResponse(format="other", text=other)
    return ParsedResponse(warnings=["response of an unknown format"])


def _not_an_answer(doc: dict[str, Any]) -> str | None:
    """Side requests a harness makes through the relay that are no model answer: model lists
    (`GET /v1/models`, Gemini's `models`) and token counts (Anthropic `count_tokens`, Gemini
    `countTokens`). Described in a line, without warning; their counts are not usage."""
    listed = doc.get("data") if isinstance(doc.get("data"), list) else doc.get("models")
    if isinstance(listed, list) and (
        doc.get("object") == "list"
        or set(doc) <= {"data", "models", "has_more", "first_id", "last_id", "nextPageToken", "object"}
    ):
        return f"[not a model answer: a list of {len(listed)} models]"
    count = as_int(doc.get("input_tokens") if "input_tokens" in doc else doc.get("totalTokens"))
    if count is not None and set(doc) <= {
        "input_tokens",
        "totalTokens",
        "cachedContentTokenCount",
        "promptTokensDetails",
    }:
        return f"[not a model answer: a token count, {count} tokens]"
    return None


def _error_only(doc: dict[str, Any]) -> ParsedResponse:
    err = doc.get("error")
    message = err.get("message") if isinstance(err, dict) else err
    return ParsedResponse(format="error", error=str(message or doc))


def _normalised(doc: dict[str, Any]) -> ParsedResponse:
    """`response` written by a runtime in this viewer's own shape (TRACE_FORMAT.md)."""
    reasoning = doc.get("reasoning")
    usage = doc.get("usage")
    if not isinstance(usage, dict):
        usage = {}
    return ParsedResponse(
        format="normalised",
        text=str(doc.get("text") or ""),
        reasoning=[reasoning]
        if isinstance(reasoning, str) and reasoning
        else list(reasoning or [])
        if isinstance(reasoning, list)
        else [],
        tool_calls=[
            ToolCall(str(c.get("name") or "?"), loads_maybe(c.get("arguments")), c.get("id"))
            for c in doc.get("tool_calls") or []
            if isinstance(c, dict)
        ],
        usage=Usage(
            input=as_int(usage.get("input_tokens")),
            output=as_int(usage.get("output_tokens")),
            cache_read=as_int(usage.get("cache_read_tokens")),
        ),
        model=doc.get("model"),
        finish_reason=doc.get("finish_reason"),
    )
