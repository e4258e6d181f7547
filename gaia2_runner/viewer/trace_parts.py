"""What makes a trace page read top to bottom: each text once (the task, the failure reason), the
judge's own model calls apart from the agent's (its checks and each call, folded), and made-up tool
names counted as tool errors."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from gaia2_runner.output.read.scenario import text_of
from gaia2_runner.output.read.trace_parsers import Message
from gaia2_runner.output.turns import turn_number

TASK_MIN = 16  # a task this long or longer is replaced wherever it is quoted; a shorter one only when it is the whole text
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
            text = text.replace(task, task_marker(number, len(tasks))) if text.strip() != task else task_marker(number, len(tasks))
    return text


def event_without_task(event: dict[str, Any], tasks: list[str]) -> dict[str, Any]:
    """A user's message (USER event, user notification) that repeats the task points to it instead."""
    if event.get("kind") == "env_event" and event.get("event_type") == "USER" and isinstance(event.get("args"), dict):
        content = event["args"].get("content")
        if isinstance(content, str):
            return {**event, "args": {**event["args"], "content": without_task(content, tasks)}}
    if event.get("kind") == "notification" and event.get("sender") == "user" and isinstance(event.get("content"), str):
        return {**event, "content": without_task(event["content"], tasks)}
    return event


def messages_without_task(messages: list[Message], tasks: list[str]) -> list[Message]:
    return [replace(m, text=without_task(m.text, tasks)) if m.role == "user" and m.text else m for m in messages]


def _bare(reason: str) -> str:
    return TURN_PREFIX.sub("", reason.strip())


def verdict_view(error: str, reasons: list[str], turns: list[dict[str, Any]], overall: str,
                 diffs: list[dict[str, Any]]) -> dict[str, Any]:
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
        messages = call.get("messages") if isinstance(call.get("messages"), list) else []
        out.append({"rejudge": rejudged, "model": text_of(call.get("model")), "step": text_of(call.get("step")),
                    "messages": [{"role": text_of(m.get("role")) or "?", "content": text_of(m.get("content"))}
                                 for m in messages if isinstance(m, dict)],
                    "response": text_of(call.get("response")), "error": text_of(call.get("error")),
                    "duration_ms": _number(call.get("duration_ms")), "prompt_tokens": _number(call.get("prompt_tokens")),
                    "completion_tokens": _number(call.get("completion_tokens")),
                    "calls_dropped": _number(call.get("calls_dropped"))})
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
                        out.append({"turn": turn_number(detail), "tool": text_of(oracle.get("tool")),
                                    "agent_event_id": text_of(attempt.get("agent_event_id")),
                                    "checker": text_of(check.get("checker")), "ok": check.get("ok") is True,
                                    "not_sent": check.get("agent_chars"), "limit": check.get("limit")})
    return out
