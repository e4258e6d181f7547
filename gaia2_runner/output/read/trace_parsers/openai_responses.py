"""OpenAI Responses API: a JSON `response` object, or its SSE stream of `response.*` events."""

from __future__ import annotations

from typing import Any

from ..values import as_int, loads_maybe
from .model import ParsedResponse, ToolCall, Usage

FORMAT = "openai-responses"


def usage_of(u: Any) -> Usage:
    if not isinstance(u, dict):
        return Usage()
    details = u.get("input_tokens_details") or {}
    out_details = u.get("output_tokens_details") or {}
    return Usage(
        input=as_int(u.get("input_tokens")),
        output=as_int(u.get("output_tokens")),
        cache_read=as_int(details.get("cached_tokens")),
        reasoning=as_int(out_details.get("reasoning_tokens")),
    )


def _item_into(item: dict[str, Any], out: ParsedResponse, texts: list[str]) -> None:
    kind = item.get("type")
    if kind == "message":
        for part in item.get("content") or []:
            if part.get("type") in ("output_text", "text"):
                texts.append(part.get("text") or "")
            elif part.get("type") == "refusal":
                texts.append("[refusal] " + (part.get("refusal") or ""))
    elif kind == "reasoning":
        pieces = [
            p.get("text") or ""
            for p in (item.get("summary") or []) + (item.get("content") or [])
            if isinstance(p, dict)
        ]
        text = "\n\n".join(p for p in pieces if p)
        out.reasoning.append(text or "[reasoning not returned in clear text]")
    elif kind == "function_call":
        out.tool_calls.append(
            ToolCall(
                item.get("name") or "?",
                loads_maybe(item.get("arguments")),
                item.get("call_id") or item.get("id"),
            )
        )
    elif kind:
        out.tool_calls.append(
            ToolCall(str(kind), {k: v for k, v in item.items() if k not in ("type", "id")}, item.get("id"))
        )


def from_json(doc: dict[str, Any]) -> ParsedResponse:
    out = ParsedResponse(format=FORMAT, model=doc.get("model"), usage=usage_of(doc.get("usage")))
    texts: list[str] = []
    for item in doc.get("output") or []:
        if isinstance(item, dict):
            _item_into(item, out, texts)
    out.text = "".join(texts)
    out.finish_reason = doc.get("status")
    incomplete = doc.get("incomplete_details")
    if isinstance(incomplete, dict) and incomplete.get("reason"):
        out.finish_reason = f"incomplete: {incomplete['reason']}"
    err = doc.get("error")
    if isinstance(err, dict) and err:
        out.error = str(err.get("message") or err)
    return out


def from_events(events: list[Any]) -> ParsedResponse:
    """The final `response.completed` (or failed/incomplete) event holds everything; without it,
    rebuild from the deltas and finished items."""
    final: dict[str, Any] | None = None
    partial = ParsedResponse(format=FORMAT + " (stream)")
    items: list[dict[str, Any]] = []
    text_deltas: list[str] = []
    error: str | None = None
    for ev in events:
        data = ev.data
        if not isinstance(data, dict):
            continue
        kind = data.get("type") or ev.event
        if kind in ("response.completed", "response.failed", "response.incomplete") and isinstance(
            data.get("response"), dict
        ):
            final = data["response"]
        elif kind == "response.created" and isinstance(data.get("response"), dict):
            partial.model = data["response"].get("model")
        elif kind == "response.output_item.done" and isinstance(data.get("item"), dict):
            items.append(data["item"])
        elif kind == "response.output_text.delta":
            text_deltas.append(data.get("delta") or "")
        elif kind == "error":
            error = str(data.get("message") or data.get("error") or data)
    if final is not None:
        out = from_json(final)
        out.format = FORMAT + " (stream)"
        if not final.get("output") and items:  # some servers send an empty output in the final event
            texts = [out.text]
            for item in items:
                _item_into(item, out, texts)
            out.text = "".join(texts)
    else:
        out = partial
        texts = []
        for item in items:
            _item_into(item, out, texts)
        out.text = "".join(texts)
        if not out.text and text_deltas:
            out.text = "".join(text_deltas)
        out.warnings.append("stream ended without response.completed")
    out.error = error or out.error
    return out
