"""The daemon's observer of ARE's judge, driven the way ARE's `injected_traceable` drives a tracer:
it records every step and returns exactly what the judge returned (the real judge: test_failure_diff_e2e)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "containers"))
from gaia2_container.daemon.judge_trace import JudgeTrace, reason_line  # noqa: E402


@dataclass
class Event:
    event_id: str
    tool_name: str
    args: dict[str, Any]
    event_type: Any = None
    event_time: float = 100.0

    def get_args(self) -> dict[str, Any]:
        return {"self": object(), **self.args}


@dataclass
class Result:
    success: bool


@dataclass
class State:
    turn_idx: int = 0
    oracle_id_to_agent_idx: dict[str, int] = field(default_factory=dict)
    agent_events: list[Event] = field(default_factory=list)


class Kind:
    value = "AGENT"


def traced(tracer: JudgeTrace, kind: str, func):  # what injected_traceable does with a tracer
    return tracer(tags=["judge"], trace_type=kind)(func)


def test_records_the_failing_argument_and_returns_the_judges_own_answers() -> None:
    trace = JudgeTrace()
    oracle = Event("o1", "Emails__send_email", {"recipients": ["maria.garcia@x.com"], "subject": "Hi"}, Kind())
    agent = Event("a1", "Emails__send_email", {"recipients": ["maria@x.com"], "subject": "Hi"}, Kind())
    judge = type("Judge", (), {"state": State()})()
    tool_judge = object()

    def checker(owner, x_agent, x_oracle, **kwargs):
        return x_agent == x_oracle

    def compare(owner, agent_event, oracle_event):
        ok = traced(trace, "event_time_checker", lambda o, **k: True)(owner, agent_event_time=5.0, oracle_event_time=5.0,
                                                                        pre_event_tolerance_seconds=10, post_event_tolerance_seconds=25)
        ok = ok and traced(trace, "eq_checker", checker)(owner, x_agent=["maria@x.com"], x_oracle=["maria.garcia@x.com"],
                                                           arg_name="recipients")
        return ok

    def match(owner, oracle_event):
        matched = traced(trace, "Emails__send_email_vs_Emails__send_email", compare)(tool_judge, agent, oracle_event)
        return Result(matched)

    def judge_call(owner, env):
        counts = traced(trace, "check_tool_call_counts", lambda o, *a: Result(True))(owner, {"Emails__send_email": 1}, 0,
                                                                                     {"Emails__send_email": 1}, 0, 1)
        assert counts.success
        return traced(trace, "matching_AGENT_tool_Emails__send_email", match)(owner, oracle)

    verdict = traced(trace, "judge", judge_call)(judge, None)
    assert verdict == Result(False)  # ARE's answer, untouched
    (turn,) = trace.take()
    assert trace.take() == []
    assert turn["turn"] == 0 and turn["success"] is False and turn["counts"]["ok"] is True
    (event,) = turn["oracle_events"]
    assert event["matched"] is False and event["args"] == {"recipients": ["maria.garcia@x.com"], "subject": "Hi"}
    checks = event["attempts"][0]["checks"]
    assert [c["checker"] for c in checks] == ["event_time_checker", "eq_checker"] and checks[1]["ok"] is False
    assert turn["reason"] == "send_email.recipients: expected ['maria.garcia@x.com'], got ['maria@x.com']"


def test_a_judge_that_raises_still_raises() -> None:
    trace = JudgeTrace()

    def boom(owner, env):
        raise RuntimeError("judge engine down")

    with pytest.raises(RuntimeError, match="judge engine down"):
        traced(trace, "judge", boom)(type("J", (), {"state": State()})(), None)


@pytest.mark.parametrize(("turn", "reason"), [
    ({"counts": {"ok": False, "differing": {"Cabs__order_ride": {"expected": 1, "made": 0}}}},
     "tool calls differ: order_ride ×0 (expected ×1)"),
    ({"counts": {"ok": True}, "oracle_events": [{"tool": "Cabs__order_ride", "matched": False, "attempts": []}]},
     "order_ride: never called"),
    ({"oracle_events": [{"tool": "Emails__send_email", "matched": False, "attempts": [{"checks": [
        {"checker": "equality_checker", "ok": False, "prefilter": True},
        {"checker": "email_checker", "ok": False, "soft": True}]}]}]},
     "send_email: rejected by ARE's email_checker (LLM check)"),
    ({"oracle_events": [{"tool": "Emails__send_email", "matched": False, "attempts": [{"checks": [
        {"checker": "event_time_checker", "ok": False, "agent": 30.0, "oracle": 600.0, "before": 10, "after": 25}]}]}]},
     "send_email: at 30s, expected 600s (-10s/+25s)"),
    ({"oracle_events": [{"tool": "Chats__send_message", "matched": False, "attempts": [{"checks": [
        {"checker": "eq_checker", "ok": True, "arg": "a"}]}]}]},
     "send_message: called, but an earlier step it depends on was not matched first"),
])
def test_reason_lines(turn: dict[str, Any], reason: str) -> None:
    assert reason_line(turn) == reason
