"""The context of one trace.html: task, a merged timeline of LLM calls and events, the verdicts."""

from __future__ import annotations

import json
from typing import Any

from .scenario import ScenarioData, row_of
from .trace_parsers import LlmCall

CLIP = 20_000  # characters of one tool result or message shown inline; the files keep everything


def clip(value: Any, limit: int = CLIP) -> str:
    text = value if isinstance(value, str) else "" if value is None else _json(value)
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit} more characters in the raw files)"


def _json(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def task_of(events: list[dict[str, Any]]) -> list[str]:
    """The user's messages: USER env events (one per turn), else user notifications."""
    users = [str((e.get("args") or {}).get("content") or "") for e in events
             if e.get("kind") == "env_event" and e.get("event_type") == "USER"]
    if not users:
        users = [str(e.get("content") or "") for e in events
                 if e.get("kind") == "notification" and e.get("sender") == "user"]
    return [u for u in users if u]


def timeline(data: ScenarioData) -> list[dict[str, Any]]:
    """Events and LLM calls in time order; calls carry only the messages new since the last call."""
    items: list[dict[str, Any]] = []
    for index, event in enumerate(data.events):
        items.append({"type": "event", "kind": str(event.get("kind") or "?"), "t": _float(event.get("wall_time")),
                      "order": (1, index), "e": event})
    cumulative_in = cumulative_out = 0
    previous = 0
    for index, call in enumerate(data.calls):
        usage = call.response.usage
        cumulative_in += usage.input or 0
        cumulative_out += usage.output or 0
        new = call.messages[previous:] if len(call.messages) >= previous else call.messages
        previous = len(call.messages)
        items.append({"type": "llm", "kind": "llm_call", "t": call.timestamp, "order": (0, index), "c": call,
                      "index": index, "new_messages": new, "skipped": len(call.messages) - len(new),
                      "cum_in": cumulative_in, "cum_out": cumulative_out})
    start = min((i["t"] for i in items if i["t"] is not None), default=None)
    for item in items:
        item["rel_t"] = None if start is None or item["t"] is None else item["t"] - start
    # Items without a time keep their file order, after the timed ones.
    items.sort(key=lambda i: (i["t"] is None, i["t"] or 0.0, i["order"]))
    return items


def context(data: ScenarioData, siblings: list[dict[str, Any]]) -> dict[str, Any]:
    result = data.result or {}
    doc = data.status_doc or {}
    row = row_of(data)
    turns = result.get("turns") or doc.get("turns") or []
    judgments = {e.get("turn"): e for e in data.events if e.get("kind") == "judgment"}
    calls: list[LlmCall] = data.calls
    return {
        "row": row,
        "result": result,
        "status_doc": doc,
        "task": task_of(data.events),
        "items": timeline(data),
        "turns": turns or list(judgments.values()),
        "judgment": result.get("judgment") or doc.get("judgment"),
        "failure_reasons": result.get("failure_reasons") or [],
        "error": result.get("error") or doc.get("error"),
        "agent_response": data.agent_response,
        "files": data.files,
        "warnings": data.warnings + [f"LLM call {c.seq}: {w}" for c in calls for w in c.warnings],
        "siblings": siblings,
        "models": sorted({c.model for c in calls if c.model}),
        "providers": sorted({c.provider for c in calls if c.provider}),
        "latency_s": sum(c.latency_ms or 0 for c in calls) / 1000.0,
        "cache_read": sum(c.response.usage.cache_read or 0 for c in calls),
        "tool_event_count": sum(1 for e in data.events if e.get("kind") == "tool_call"),
    }


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
