"""OpenAI Chat Completions (and compatible servers: vLLM, Ollama, OpenRouter …), JSON and SSE."""

from __future__ import annotations

from typing import Any

from ..values import as_int, loads_maybe
from .model import ParsedResponse, ToolCall, Usage

FORMAT = "openai-chat"


def usage_of(u: Any) -> Usage:
    if not isinstance(u, dict):
        return Usage()
    prompt = u.get("prompt_tokens_details") or {}
    completion = u.get("completion_tokens_details") or {}
    return Usage(
        input=as_int(u.get("prompt_tokens")),
        output=as_int(u.get("completion_tokens")),
        cache_read=as_int(prompt.get("cached_tokens")) if isinstance(prompt, dict) else None,
        reasoning=as_int(completion.get("reasoning_tokens")) if isinstance(completion, dict) else None,
    )


def content_text(content: Any) -> str:
    """`content` is a string or a list of parts ({type: text, text})."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text") or "" for p in content if isinstance(p, dict))
    return ""


def reasoning_of(message: dict[str, Any]) -> str:
    """vLLM/DeepSeek say `reasoning_content`, OpenRouter and newer vLLM say `reasoning`."""
    for key in ("reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def from_json(doc: dict[str, Any]) -> ParsedResponse:
    out = ParsedResponse(format=FORMAT, model=doc.get("model"), usage=usage_of(doc.get("usage")))
    choices = doc.get("choices") or []
    if not choices:
        out.warnings.append("response has no choices")
        return out
    choice = choices[0]
    message = choice.get("message") or {}
    out.text = content_text(message.get("content"))
    if reasoning_of(message):
        out.reasoning.append(reasoning_of(message))
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {}
        out.tool_calls.append(
            ToolCall(fn.get("name") or "?", loads_maybe(fn.get("arguments")), call.get("id"))
        )
    out.finish_reason = choice.get("finish_reason")
    return out


def from_events(events: list[Any]) -> ParsedResponse:
    out = ParsedResponse(format=FORMAT + " (stream)")
    text: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    for ev in events:
        data = ev.data
        if not isinstance(data, dict):
            continue
        if "error" in data:
            out.error = str(
                (data["error"] or {}).get("message") if isinstance(data["error"], dict) else data["error"]
            )
        out.model = data.get("model") or out.model
        if data.get("usage"):
            out.usage = usage_of(data["usage"])
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or {}
            text.append(content_text(delta.get("content")))
            reasoning.append(reasoning_of(delta))
            for part in delta.get("tool_calls") or []:
                slot = calls.setdefault(as_int(part.get("index")) or 0, {"id": None, "name": [], "args": []})
                slot["id"] = part.get("id") or slot["id"]
                fn = part.get("function") or {}
                slot["name"].append(fn.get("name") or "")  # joined at the end: += would be quadratic
                slot["args"].append(fn.get("arguments") or "")
            out.finish_reason = choice.get("finish_reason") or out.finish_reason
    out.text = "".join(text)
    if "".join(reasoning):
        out.reasoning.append("".join(reasoning))
    out.tool_calls = [
        ToolCall("".join(c["name"]) or "?", loads_maybe("".join(c["args"])), c["id"])
        for _, c in sorted(calls.items())
    ]
    return out
