"""What ARE's judge compared, per turn: which oracle event matched which agent event, every
argument check with both values, time and soft (LLM) checks, and the tool-count precheck.

ARE's judges accept a `tracer` in their config and call it around every step they take
(`injected_traceable`). We pass an observer there: it records arguments and results and returns
what ARE returned, so the verdict is still ARE's own. The record feeds the failure diff (result,
index, terminal, trace page) and is written to events.jsonl as one `judge_detail` line per turn.

Turns are numbered from 1 here (`turn_number`; ARE's `turn_idx` counts from 0). When ARE refuses to
validate because the scenario's last turn never began (its "Validation called at turn -1" after an
agent stopped early), the turn is the one the agent stopped in and the reason says so. Tool-count
differences in events the agent did not make (the user's `send_message_to_agent`, ENV events) are
never listed as missing agent calls.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import wraps
from typing import Any

from ...jsonable import to_jsonable
from .calls import JudgeCalls
from .guard import AGENT_TEXT_CAP, oversized_agent_text
from .refusal import REFUSED, take_refusal

VALUE_CAP = 600  # characters of one argument value kept (agent-controlled text can be huge)
MAX_ATTEMPTS = 20  # agent events compared with one oracle event
MAX_CHECKS = 40
SEND_TO_USER = "AgentUserInterface__send_message_to_user"
# Checkers that take (x_agent, x_oracle): an argument compared with its expected value.
TIME_CHECKER = "event_time_checker"
COUNT_CHECK = "check_tool_call_counts"
NOT_AGENT = {"USER": "user", "ENV": "environment"}  # ARE's event types of events the agent does not make
EQUALITY_PREFILTER = "equality_checker"


def _value(value: Any) -> Any:
    data = to_jsonable(value)
    text = data if isinstance(data, str) else None
    if text is not None and len(text) > VALUE_CAP:
        return text[:VALUE_CAP] + f"… ({len(text) - VALUE_CAP} more characters)"
    if text is None and len(repr(data)) > VALUE_CAP:
        return repr(data)[:VALUE_CAP] + "…"
    return data


def _args(event: Any) -> dict[str, Any]:
    try:
        return {k: _value(v) for k, v in (event.get_args() or {}).items() if k != "self"}
    except Exception:  # noqa: BLE001 - an event without args is still worth naming
        return {}


class JudgeTrace:
    """The tracer handed to ARE (`GraphPerEventJudgeConfig(tracer=...)`); `take()` hands out the
    turns recorded since the last call."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._local = threading.local()
        self._turns: list[dict[str, Any]] = []
        self.calls = JudgeCalls()  # the judge model's calls (engine.build_judge_engine records them)

    # ---- ARE's tracer protocol ----------------------------------------------------------------
    def __call__(
        self,
        tags: Any = None,
        trace_type: str | None = None,
        meta_data: Any = None,
        log_input_args: bool = True,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
            @wraps(func)
            def wrapper(owner: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    self._enter(trace_type or "", owner, args, kwargs)
                except Exception:  # noqa: BLE001 - observing must never change the judge
                    pass
                steps = self._steps()
                steps.append(trace_type or "")
                try:
                    result = func(owner, *args, **kwargs)
                finally:
                    steps.pop()
                try:
                    self._exit(trace_type or "", owner, args, kwargs, result)
                except Exception:  # noqa: BLE001
                    pass
                return result

            return wrapper

        return decorator

    def take(self) -> list[dict[str, Any]]:
        with self._lock:
            turns, self._turns = self._turns, []
            return turns

    def step(self) -> str | None:
        """The innermost step of ARE's judge running in this thread (e.g. `email_checker`)."""
        steps = self._steps()
        return steps[-1] if steps else None

    def _steps(self) -> list[str]:
        if not hasattr(self._local, "steps"):
            self._local.steps = []
        return self._local.steps

    # ---- recording ----------------------------------------------------------------------------
    @property
    def _turn(self) -> dict[str, Any] | None:
        return getattr(self._local, "turn", None)

    def _enter(self, kind: str, owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if kind == "judge" and hasattr(owner, "state"):
            self._local.turn = {"oracle_events": [], "counts": None}
            self._local.match = self._local.attempt = None
            self._local.turn_idx = getattr(owner.state, "turn_idx", None)  # ARE advances it when it judges
        elif kind.startswith("matching_") and self._turn is not None and args:
            oracle = args[0]
            self._local.match = {
                "oracle_event_id": oracle.event_id,
                "tool": getattr(oracle, "tool_name", None),
                "event_type": getattr(getattr(oracle, "event_type", None), "value", None),
                "args": _args(oracle),
                "matched": None,
                "agent_event_id": None,
                "attempts": [],
            }
        elif "_vs_" in kind and getattr(self._local, "match", None) is not None and len(args) >= 2:
            match = self._local.match
            agent = args[0]
            if match["event_type"] == "AGENT" and len(match["attempts"]) < MAX_ATTEMPTS:
                attempt = {
                    "agent_event_id": agent.event_id,
                    "args": _args(agent),
                    "time": _time_of(agent),
                    "checks": [],
                    "ok": None,
                }
                match["attempts"].append(attempt)
                self._local.attempt = attempt
            else:
                self._local.attempt = None

    def _exit(
        self, kind: str, owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any
    ) -> None:
        turn = self._turn
        if turn is None:
            return
        if kind == "judge" and hasattr(owner, "state"):
            state = owner.state
            index, nb_turns = getattr(state, "turn_idx", None), getattr(state, "nb_turns", None)
            judged = index != getattr(self._local, "turn_idx", None)  # else ARE refused to validate
            number = (index + 1 if judged else index + 2) if isinstance(index, int) else None
            turn.update(turn_number=number, success=bool(getattr(result, "success", False)))
            turn["reason"] = (
                "" if turn["success"] else reason_line(turn) if judged else stopped_reason(number, nb_turns)
            )
            with self._lock:
                self._turns.append(turn)
            self._local.turn = None
        elif kind == COUNT_CHECK:
            turn["counts"] = _counts(args, kwargs, result, _not_agent_tools(owner))
        elif kind.startswith("matching_") and getattr(self._local, "match", None) is not None:
            match = self._local.match
            match["matched"] = bool(getattr(result, "success", False))
            state = getattr(owner, "state", None)
            index = getattr(state, "oracle_id_to_agent_idx", {}).get(match["oracle_event_id"])
            if index is not None and state is not None:  # an index comes only from a state
                match["agent_event_id"] = state.agent_events[index].event_id
            turn["oracle_events"].append(match)
            self._local.match = self._local.attempt = None
        elif "_vs_" in kind and getattr(self._local, "attempt", None) is not None:
            self._local.attempt["ok"] = bool(result)
            self._local.attempt = None
        else:
            refused = take_refusal() if not kind.endswith("_judge") else None  # a refusal in this check
            attempt = getattr(self._local, "attempt", None)
            if (
                attempt is not None
                and len(attempt["checks"]) < MAX_CHECKS
                and isinstance(result, bool)
                and not kind.endswith("_judge")
            ):
                attempt["checks"].append(_check(kind, kwargs, args, result, owner, refused))


def _time_of(event: Any) -> float | None:
    value = getattr(event, "event_time", None)
    return round(float(value), 3) if isinstance(value, (int, float)) else None


def _check(
    kind: str,
    kwargs: dict[str, Any],
    args: tuple[Any, ...],
    ok: bool,
    owner: Any = None,
    refused: str | None = None,
) -> dict[str, Any]:
    check: dict[str, Any] = {"checker": kind, "ok": ok}
    if kind == EQUALITY_PREFILTER:  # the soft judge's exact comparison; its LLM checkers decide after it
        check["prefilter"] = True
    elif kind == TIME_CHECKER:
        check.update(
            agent=kwargs.get("agent_event_time"),
            oracle=kwargs.get("oracle_event_time"),
            before=kwargs.get("pre_event_tolerance_seconds"),
            after=kwargs.get("post_event_tolerance_seconds"),
            comparator=kwargs.get("event_time_comparator"),
        )
    elif "x_agent" in kwargs or len(args) >= 2:
        check.update(
            arg=kwargs.get("arg_name"),
            agent=_value(kwargs.get("x_agent", args[0] if args else None)),
            oracle=_value(kwargs.get("x_oracle", kwargs.get("targets", args[1] if len(args) > 1 else None))),
        )
    else:
        check["soft"] = True
        chars = None if ok else oversized_agent_text(owner, kwargs)
        if chars is not None:  # the guard failed it without asking the judge
            check.update(agent_chars=chars, limit=AGENT_TEXT_CAP)
        elif refused is not None and not ok:  # the judge's provider refused the agent's text (judge_refusal)
            check["refused"] = refused
    return check


def _not_agent_tools(judge: Any) -> dict[str, str]:
    """Tool name -> who made it ("user", "environment") for the events of the judged turn that are
    not the agent's: ARE's count precheck counts them too (its event filter keeps ENV and USER)."""
    state = getattr(judge, "state", None)
    found: dict[str, str] = {}
    agent_tools: set[str] = set()
    for name in ("current_turn_oracle_events", "current_turn_agent_events"):
        try:
            events = list(getattr(state, name, None) or [])
        except Exception:  # noqa: BLE001 - ARE's property indexes by turn: observing never raises
            events = []
        for event in events:
            kind = getattr(getattr(event, "event_type", None), "value", None)
            tool = getattr(event, "tool_name", None)
            if not tool:
                continue
            if kind in NOT_AGENT:
                found.setdefault(tool, NOT_AGENT[kind])
            else:
                agent_tools.add(tool)
    return {tool: who for tool, who in found.items() if tool not in agent_tools}


def _counts(
    args: tuple[Any, ...], kwargs: dict[str, Any], result: Any, not_agent: dict[str, str] | None = None
) -> dict[str, Any] | None:
    names = ("agent_counter", "agent_aui_count", "oracle_counter", "oracle_aui_count")
    values = dict(zip(names, args)) | {k: v for k, v in kwargs.items() if k in names}
    agent, oracle = dict(values.get("agent_counter") or {}), dict(values.get("oracle_counter") or {})
    differing = {
        tool: {
            "expected": oracle.get(tool, 0),
            "made": agent.get(tool, 0),
            **({"by": (not_agent or {})[tool]} if tool in (not_agent or {}) else {}),
        }
        for tool in sorted(set(agent) | set(oracle))
        if agent.get(tool, 0) != oracle.get(tool, 0)
    }
    return {
        "ok": bool(getattr(result, "success", False)),
        "differing": differing,
        "messages_to_user": {
            "expected": values.get("oracle_aui_count"),
            "made": values.get("agent_aui_count"),
        },
    }


def _short(tool: str | None) -> str:
    return (tool or "?").split("__", 1)[-1]


def _shown(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def reason_line(turn: dict[str, Any]) -> str:
    """The one-line why of a failed turn, e.g. `send_email.recipients: expected a@x, got b@x`."""
    counts = turn.get("counts")
    if counts and not counts.get("ok"):
        mine = {tool: c for tool, c in counts["differing"].items() if not c.get("by")}
        parts = [f"{_short(tool)} ×{c['made']} (expected ×{c['expected']})" for tool, c in mine.items()]
        users = counts.get("messages_to_user") or {}
        if not parts and users.get("made") != users.get("expected"):
            parts = [f"send_message_to_user ×{users.get('made')} (expected ×{users.get('expected')})"]
        if not parts:  # only events the agent does not make: its turn did not line up with the oracle's
            others = [
                f"{c['by']}'s {_short(tool)} ×{c['made']} (expected ×{c['expected']})"
                for tool, c in counts["differing"].items()
            ]
            return (
                "events not made by the agent differ in this turn: "
                + ", ".join(others[:3])
                + ("…" if len(others) > 3 else "")
            )
        return "tool calls differ: " + ", ".join(parts[:3]) + ("…" if len(parts) > 3 else "")
    failed = next((m for m in turn.get("oracle_events", []) if m.get("matched") is False), None)
    if failed is None:
        return ""
    name = _short(failed.get("tool"))
    attempts = [a for a in failed.get("attempts", []) if a.get("checks")]
    if not attempts:
        return f"{name}: no matching call by the agent" if failed.get("attempts") else f"{name}: never called"
    best = min(attempts, key=lambda a: sum(1 for c in a["checks"] if not c["ok"] and not c.get("prefilter")))
    bad = next((c for c in best["checks"] if not c["ok"] and not c.get("prefilter")), None)
    if bad is None:
        return f"{name}: called, but an earlier step it depends on was not matched first"
    if bad["checker"] == TIME_CHECKER:
        return (
            f"{name}: at {_secs(bad.get('agent'))}, expected {_secs(bad.get('oracle'))} "
            f"(-{bad.get('before')}s/+{bad.get('after')}s)"
        )
    if bad.get("soft") and bad.get("agent_chars"):
        return (
            f"{name}: the agent's text is {bad['agent_chars']:,} characters, over the judge's limit of "
            f"{bad.get('limit', AGENT_TEXT_CAP):,} (not sent to the judge)"
        )
    if bad.get("soft") and bad.get("refused"):
        return f"{name}: {REFUSED}: {bad['refused']}"
    if bad.get("soft"):
        return f"{name}: rejected by ARE's {bad['checker']} (LLM check)"
    return f"{name}.{bad.get('arg') or '?'}: expected {_shown(bad.get('oracle'))}, got {_shown(bad.get('agent'))}"


def stopped_reason(number: int | None, nb_turns: Any) -> str:
    """Why ARE refused to validate: the scenario's last turn never began (ARE's own words, e.g.
    "Validation called at turn -1 but nb_turns is 2", stay in the rationale)."""
    total = f" of {nb_turns}" if isinstance(nb_turns, int) else ""
    return (
        f"the agent stopped in turn {number if number is not None else '?'}{total}: ARE judges a "
        "scenario only after its last turn, which never began"
    )


def _secs(value: Any) -> str:
    return f"{value:.0f}s" if isinstance(value, (int, float)) else "?"
