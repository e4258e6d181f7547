"""What makes a trace page read top to bottom: each text once (the task, the failure reason), the
judge's own model calls apart from the agent's (its checks and each call, folded), made-up tool
names counted as tool errors, and an expert sub-agent's steps under the call that asked it (A2A)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from gaia2_contract.constants import SUB_AGENT_CALL_KIND
from gaia2_runner.output.read.scenario import text_of
from gaia2_runner.output.read.trace_parsers import Message
from gaia2_runner.output.turns import turn_number

# a task this long or longer is replaced wherever it is quoted; a shorter one only when it is the whole text
TASK_MIN = 16
TURN_PREFIX = re.compile(r"^turn \d+: ")


def task_marker(number: int, of: int) -> str:
    return f"[the task{f' of turn {number}' if of > 1 else ''}: shown above]"


def without_task(text: str, tasks: list[str]) -> str:
    """`text` with each task it quotes replaced by a pointer to the Task section."""
    for number, task in enumerate(tasks, start=1):
        task = task.strip()
        if not task:
            continue
        if text.strip() == task or (len(task) >= TASK_MIN and task in text):
            text = (
                text.replace(task, task_marker(number, len(tasks)))
                if text.strip() != task
                else task_marker(number, len(tasks))
            )
    return text


def event_without_task(event: dict[str, Any], tasks: list[str]) -> dict[str, Any]:
    """A user's message (USER event, user notification) that repeats the task points to it instead."""
    if (
        event.get("kind") == "env_event"
        and event.get("event_type") == "USER"
        and isinstance(event.get("args"), dict)
    ):
        content = event["args"].get("content")
        if isinstance(content, str):
            return {**event, "args": {**event["args"], "content": without_task(content, tasks)}}
    if (
        event.get("kind") == "notification"
        and event.get("sender") == "user"
        and isinstance(event.get("content"), str)
    ):
        return {**event, "content": without_task(event["content"], tasks)}
    return event


def messages_without_task(messages: list[Message], tasks: list[str]) -> list[Message]:
    return [
        replace(m, text=without_task(m.text, tasks)) if m.role == "user" and m.text else m for m in messages
    ]


def _bare(reason: str) -> str:
    return TURN_PREFIX.sub("", reason.strip())


def verdict_view(
    error: str, reasons: list[str], turns: list[dict[str, Any]], overall: str, diffs: list[dict[str, Any]]
) -> dict[str, Any]:
    """The headline (why the run failed, in one line, once), then only what it does not already say:
    the per-turn rationales, the overall rationale, further reasons, each diff's reason."""
    headline = error or (reasons[0] if reasons else "")
    shown = {_bare(headline)} - {""}
    rows = []
    for turn in turns:
        text = text_of(turn.get("rationale") or turn.get("error")).strip()
        rows.append({**turn, "text": "" if _bare(text) in shown else text})
        shown.add(_bare(text))
        shown.add(_bare(text_of(turn.get("reason"))))
    overall = overall.strip()
    if any(overall and (overall in s or s in overall) for s in shown if s):
        overall = ""
    shown.add(overall)
    more = []
    for reason in reasons:
        bare = _bare(reason)
        if bare and not any(bare in s or (s and s in bare) for s in shown):
            more.append(reason)
            shown.add(bare)
    for diff in diffs:
        reason = text_of(diff.get("reason")).strip()
        diff["shown_reason"] = "" if _bare(reason) in shown else reason
    return {"headline": headline, "turns": rows, "overall": overall, "reasons": more}


def judge_calls(events: list[dict[str, Any]], rejudge: Any = None) -> list[dict[str, Any]]:
    """The judge model's own calls (`judge_call` lines; a re-judge's `judge_calls` in rejudged.json,
    marked `rejudge`), each field in the type the page shows (the files are untrusted)."""
    live = [e for e in events if e.get("kind") == "judge_call"]
    again = rejudge.get("judge_calls") if isinstance(rejudge, dict) else None
    calls = [(False, c) for c in live] + [(True, c) for c in (again if isinstance(again, list) else [])]
    out = []
    for rejudged, call in calls:
        if not isinstance(call, dict):
            continue
        messages = call.get("messages")
        if not isinstance(messages, list):
            messages = []
        out.append(
            {
                "rejudge": rejudged,
                "model": text_of(call.get("model")),
                "step": text_of(call.get("step")),
                "messages": [
                    {"role": text_of(m.get("role")) or "?", "content": text_of(m.get("content"))}
                    for m in messages
                    if isinstance(m, dict)
                ],
                "response": text_of(call.get("response")),
                "error": text_of(call.get("error")),
                "duration_ms": _number(call.get("duration_ms")),
                "prompt_tokens": _number(call.get("prompt_tokens")),
                "completion_tokens": _number(call.get("completion_tokens")),
                "calls_dropped": _number(call.get("calls_dropped")),
            }
        )
    return out


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def judge_checks(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every time ARE's judge asked its model (an LLM soft check), from the `judge_detail` lines:
    the turn, the tool, the checker and its answer (the calls themselves: `judge_calls`)."""
    out = []
    for detail in events:
        if detail.get("kind") != "judge_detail" or not isinstance(detail.get("oracle_events"), list):
            continue
        for oracle in detail["oracle_events"]:
            if not isinstance(oracle, dict) or not isinstance(oracle.get("attempts"), list):
                continue
            for attempt in oracle["attempts"]:
                checks = attempt.get("checks") if isinstance(attempt, dict) else None
                for check in checks if isinstance(checks, list) else []:
                    if isinstance(check, dict) and check.get("soft") is True:
                        out.append(
                            {
                                "turn": turn_number(detail),
                                "tool": text_of(oracle.get("tool")),
                                "agent_event_id": text_of(attempt.get("agent_event_id")),
                                "checker": text_of(check.get("checker")),
                                "ok": check.get("ok") is True,
                                "not_sent": check.get("agent_chars"),
                                "limit": check.get("limit"),
                            }
                        )
    return out


def nest_expert_calls(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Agent2Agent: what an expert sub-agent did (events with `parent_call_id`) moves under the
    agent's `expert_agent` call with that `call_id`, as the item's `nested` steps, in file order;
    a step whose parent is not in the file stays in the timeline. Each nested model call gets
    `reply`, the text its model answered (the files are untrusted: '' when unreadable)."""
    parents = {
        item["e"].get("call_id"): item
        for item in items
        if item.get("type") == "event"
        and item.get("kind") == "tool_call"
        and isinstance(item["e"].get("call_id"), str)
    }
    kept = []
    for item in items:
        parent_id = item.get("e", {}).get("parent_call_id") if item.get("type") == "event" else None
        parent = parents.get(parent_id) if isinstance(parent_id, str) else None
        if parent is None:
            kept.append(item)
            continue
        step = {
            **item,
            "reply": _reply_text(item["e"].get("raw_response"))
            if item.get("kind") == SUB_AGENT_CALL_KIND
            else "",
        }
        parent.setdefault("nested", []).append(step)
    for parent in parents.values():
        parent.get("nested", []).sort(key=lambda step: step["order"])
    return kept


def _reply_text(raw: Any) -> str:
    """The assistant's text of a Chat Completions answer (what ARE's app agent reads)."""
    if not isinstance(raw, str):
        return ""
    try:
        doc = json.loads(raw)
        return text_of(doc["choices"][0]["message"].get("content"))
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return ""
