"""Google Gemini generateContent: one JSON document, or streamed chunks (SSE or a JSON array)."""

from __future__ import annotations

from typing import Any

from ..values import add, as_int
from .model import ParsedResponse, ToolCall, Usage

FORMAT = "gemini"


def usage_of(u: Any) -> Usage:
    """Thought tokens are billed as output, so they are counted in `output` and shown apart."""
    if not isinstance(u, dict):
        return Usage()
    thoughts = as_int(u.get("thoughtsTokenCount"))
    return Usage(
        input=as_int(u.get("promptTokenCount")),
        output=add(as_int(u.get("candidatesTokenCount")), thoughts),
        cache_read=as_int(u.get("cachedContentTokenCount")),
        reasoning=thoughts,
    )


def _chunk_into(doc: dict[str, Any], out: ParsedResponse, reasoning: list[str], texts: list[str]) -> None:
    if isinstance(doc.get("error"), dict):
        out.error = str(doc["error"].get("message") or doc["error"])
    out.model = doc.get("modelVersion") or out.model
    if doc.get("usageMetadata"):
        out.usage = usage_of(doc["usageMetadata"])
    candidates = doc.get("candidates") or []
    if not candidates:
        feedback = doc.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            out.finish_reason = f"blocked: {feedback['blockReason']}"
        return
    candidate = candidates[0]
    for part in (candidate.get("content") or {}).get("parts") or []:
        if not isinstance(part, dict):
            continue
        if "functionCall" in part:
            call = part["functionCall"] or {}
            out.tool_calls.append(ToolCall(call.get("name") or "?", call.get("args"), call.get("id")))
        elif part.get("thought") and isinstance(part.get("text"), str):
            reasoning.append(part["text"])
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    out.finish_reason = candidate.get("finishReason") or out.finish_reason


def from_json(doc: dict[str, Any]) -> ParsedResponse:
    return from_chunks([doc], FORMAT)


def from_chunks(chunks: list[Any], fmt: str = FORMAT + " (stream)") -> ParsedResponse:
    out = ParsedResponse(format=fmt)
    reasoning: list[str] = []
    texts: list[str] = []  # joined once: += over thousands of chunks would be quadratic
    for chunk in chunks:
        if isinstance(chunk, dict):
            _chunk_into(chunk, out, reasoning, texts)
    out.text = "".join(texts)
    if reasoning:
        out.reasoning.append("".join(reasoning))
    return out


def from_events(events: list[Any]) -> ParsedResponse:
    return from_chunks([ev.data for ev in events])
