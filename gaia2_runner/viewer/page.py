"""The context of one trace.html: task, a merged timeline of LLM calls and events, the verdicts."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from gaia2_runner.output.read.record import RunRecord
from gaia2_runner.output.read.scenario import ScenarioData, call_cost_of, failure_reasons, text_of
from gaia2_runner.output.read.trace_parsers import LlmCall
from gaia2_runner.output.read.trace_parsers.offered import unknown_tool_count
from gaia2_runner.output.read.values import as_num, pretty
from gaia2_runner.output.turns import failed_turn_number, turn_number

from .trace_parts import (
    event_without_task,
    judge_calls,
    judge_checks,
    messages_without_task,
    nest_expert_calls,
    verdict_view,
)

CLIP = 20_000  # characters of one tool result or message shown inline; the files keep everything


def clip(value: Any, limit: int = CLIP) -> str:
    text = value if isinstance(value, str) else "" if value is None else pretty(value)
    text = (
        text
        if len(text) <= limit
        else text[:limit] + f"\n… ({len(text) - limit} more characters in the raw files)"
    )
    return text.replace("\x00", "\ufffd")


def task_of(events: list[dict[str, Any]]) -> list[str]:
    """The user's messages: USER env events (one per turn), else user notifications."""
    users = [
        text_of(e["args"].get("content"))
        for e in events
        if e.get("kind") == "env_event" and e.get("event_type") == "USER" and isinstance(e.get("args"), dict)
    ]
    if not users:
        users = [
            text_of(e.get("content"))
            for e in events
            if e.get("kind") == "notification" and e.get("sender") == "user"
        ]
    return [u for u in users if u]


def judge_diffs(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per judged turn, what ARE's judge compared (the daemon's `judge_detail` lines): each oracle
    event, whether an agent event matched it, and for an unmatched one the closest attempt with
    every argument side by side, the failing ones marked."""
    turns = []
    for detail in events:
        if detail.get("kind") != "judge_detail" or not isinstance(detail.get("oracle_events"), list):
            continue
        rows = []
        for oracle in _dicts(detail["oracle_events"]):
            if oracle.get("event_type") not in (None, "AGENT"):
                continue
            attempts = _dicts(oracle.get("attempts"))
            closest = min(
                attempts,
                key=lambda a: sum(
                    1 for c in _dicts(a.get("checks")) if c.get("ok") is False and not c.get("prefilter")
                ),
                default=None,
            )
            rows.append(
                {
                    "tool": text_of(oracle.get("tool")),
                    "matched": oracle.get("matched") is True,
                    "agent_event_id": text_of(oracle.get("agent_event_id")),
                    "attempts": len(attempts),
                    "args": _side_by_side(oracle, closest),
                }
            )
        counts = detail.get("counts")
        if not isinstance(counts, dict):
            counts = {}
        differing = counts.get("differing")
        if not isinstance(differing, dict):
            differing = {}
        turns.append(
            {
                "turn": turn_number(detail),
                "success": detail.get("success") is True,
                "reason": text_of(detail.get("reason")),
                "oracle": rows,
                "counts": [(text_of(k), v) for k, v in differing.items() if isinstance(v, dict)],
            }
        )
    return turns


def _side_by_side(oracle: dict[str, Any], attempt: dict[str, Any] | None) -> list[dict[str, Any]]:
    expected = oracle.get("args")
    if not isinstance(expected, dict):
        expected = {}
    actual = attempt.get("args") if attempt else None
    if not isinstance(actual, dict):
        actual = {}
    failing: dict[str, str] = {}
    for check in _dicts(attempt.get("checks")) if attempt else []:
        if check.get("ok") is False and not check.get("prefilter"):
            name = text_of(check.get("arg")) or (
                "(time)" if "time" in text_of(check.get("checker")) else "(content)"
            )
            failing.setdefault(name, text_of(check.get("checker")))
    rows = [
        {
            "name": name,
            "expected": expected.get(name),
            "actual": actual.get(name) if attempt else None,
            "has_actual": attempt is not None and name in actual,
            "failed": name in failing,
            "checker": failing.get(name, ""),
        }
        for name in sorted(set(expected) | set(actual), key=str)
    ]
    rows += [
        {
            "name": name,
            "expected": None,
            "actual": None,
            "has_actual": False,
            "failed": True,
            "checker": checker,
        }
        for name, checker in failing.items()
        if name.startswith("(")
    ]
    return rows


def timeline(data: ScenarioData, tasks: list[str] | None = None) -> list[dict[str, Any]]:
    """Events and LLM calls in time order; calls carry only the messages new since the last call;
    a user message that repeats the task (`tasks`) points to it instead."""
    tasks = tasks or []
    items: list[dict[str, Any]] = []
    for index, event in enumerate(data.events):
        if event.get("kind") in ("judge_detail", "judge_call"):  # the verdict's diff; the judge section
            continue
        items.append(
            {
                "type": "event",
                "kind": str(event.get("kind") or "?"),
                "t": _float(event.get("wall_time")),
                "order": (1, index),
                "e": event_without_task(event, tasks),
                "turn": turn_number(event),
                **sim_clock(event.get("sim_time")),
            }
        )
    cumulative_in = cumulative_out = 0
    for index, call in enumerate(data.calls):
        usage = call.response.usage
        cumulative_in += usage.input or 0
        cumulative_out += usage.output or 0
        items.append(
            {
                "type": "llm",
                "kind": "llm_call",
                "t": call.timestamp,
                "order": (0, index),
                "c": call,
                "index": index,
                "new_messages": messages_without_task(call.messages, tasks),
                "skipped": call.earlier_messages,
                "cum_in": cumulative_in,
                "cum_out": cumulative_out,
                "cost": call_cost_of(call),
            }
        )
    start = min((i["t"] for i in items if i["t"] is not None), default=None)
    for item in items:
        item["rel_t"] = None if start is None or item["t"] is None else item["t"] - start
    # Items without a time keep their file order, after the timed ones.
    items.sort(key=lambda i: (i["t"] is None, i["t"] or 0.0, i["order"]))
    return items


def sim_clock(value: Any) -> dict[str, str]:
    """The simulated time of an event (ARE's clock, UTC) as `sim` "HH:MM:SS" and `sim_title`, the
    full date; empty when the file has none or nonsense (it is untrusted)."""
    seconds = as_num(value)
    try:
        when = datetime.fromtimestamp(seconds, tz=UTC) if seconds is not None else None
    except (OverflowError, OSError, ValueError):
        when = None
    if when is None:
        return {}
    return {"sim": when.strftime("%H:%M:%S"), "sim_title": when.strftime("simulated %Y-%m-%d %H:%M:%S UTC")}


def sim_span(result: dict[str, Any]) -> str:
    """'2024-10-01 09:00:00 → 09:02:01 UTC (121 s simulated)' from result.json, or ''."""
    start, end = sim_clock(result.get("sim_start")), sim_clock(result.get("sim_end"))
    if not start:
        return ""
    text = start["sim_title"].removeprefix("simulated ").removesuffix(" UTC")
    text += (f" → {end['sim']}" if end else "") + " UTC"
    elapsed = as_num(result.get("sim_elapsed"))
    return text + (f" ({elapsed:g} s simulated)" if elapsed is not None else "")


def context(
    data: ScenarioData,
    row: RunRecord,
    siblings: list[dict[str, Any]],
    neighbours: tuple[dict[str, str] | None, dict[str, str] | None] = (None, None),
) -> dict[str, Any]:
    """Everything trace.html.j2 reads, each in the type it expects (the files' types are not trusted)."""
    result = data.result or {}
    doc = data.status_doc or {}
    turns = _dicts(result.get("turns")) or _dicts(doc.get("turns"))
    judgments = {pretty(turn_number(e)): e for e in data.events if e.get("kind") == "judgment"}
    judgment = result.get("judgment") or doc.get("judgment")
    calls: list[LlmCall] = data.calls
    # Numbered from 1 whatever the runner that wrote them (output/turns.py reads older runs too).
    turns = [{**t, "number": turn_number(t)} for t in turns or list(judgments.values())]
    tasks = task_of(data.events)
    error = text_of(result.get("error") or doc.get("error"))
    diffs = [d for d in judge_diffs(data.events) if not d["success"]]
    overall = text_of(judgment.get("rationale")) if isinstance(judgment, dict) else ""
    return {
        "row": row,
        "result": result,
        "status_doc": doc,
        "task": tasks,
        "items": nest_expert_calls(timeline(data, tasks)),  # Agent2Agent: sub-agents under their call
        "sim_span": sim_span(result),
        "judgment": judgment if isinstance(judgment, dict) else None,
        "failed_turn": failed_turn_number(judgment),
        "verdict": verdict_view(error, failure_reasons(result), turns, overall, diffs),
        "diffs": diffs,
        "judge_checks": judge_checks(data.events),
        "judge_calls": judge_calls(data.events, getattr(data, "rejudge", None)),
        "unknown_tools": unknown_tool_count(calls),  # already in row.tool_errors: shown as a part
        "prev_page": neighbours[0],
        "next_page": neighbours[1],
        "error": error,
        "agent_response": data.agent_response,
        "files": data.files,
        "raw": data.raw,
        "warnings": list(
            dict.fromkeys(
                data.warnings
                + [
                    f"LLM call {c.seq if c.seq is not None else i}: {w}"
                    for i, c in enumerate(calls)
                    for w in c.warnings
                ]
            )
        ),
        "siblings": siblings,
        "models": sorted({c.model for c in calls if c.model}),
        "providers": sorted({c.provider for c in calls if c.provider}),
        "latency_s": sum(c.latency_ms or 0 for c in calls) / 1000.0,
        "cache_read": sum(c.response.usage.cache_read or 0 for c in calls),
        "tool_event_count": sum(1 for e in data.events if e.get("kind") == "tool_call"),
    }


def _float(value: Any) -> float | None:
    return as_num(value)


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
