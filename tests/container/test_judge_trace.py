"""The daemon's observer of ARE's judge, driven the way ARE's `injected_traceable` drives a tracer:
it records every step and returns exactly what the judge returned (the real judge: test_failure_diff_e2e)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from gaia2_container.daemon.judge.trace import JudgeTrace, reason_line  # noqa: E402


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
    oracle = Event(
        "o1", "Emails__send_email", {"recipients": ["maria.garcia@x.com"], "subject": "Hi"}, Kind()
    )
    agent = Event("a1", "Emails__send_email", {"recipients": ["maria@x.com"], "subject": "Hi"}, Kind())
    judge = type("Judge", (), {"state": State(turn_idx=-1)})()
    tool_judge = object()

    def checker(owner, x_agent, x_oracle, **kwargs):
        return x_agent == x_oracle

    def compare(owner, agent_event, oracle_event):
        ok = traced(trace, "event_time_checker", lambda o, **k: True)(
            owner,
            agent_event_time=5.0,
            oracle_event_time=5.0,
            pre_event_tolerance_seconds=10,
            post_event_tolerance_seconds=25,
        )
        ok = ok and traced(trace, "eq_checker", checker)(
            owner, x_agent=["maria@x.com"], x_oracle=["maria.garcia@x.com"], arg_name="recipients"
        )
        return ok

    def match(owner, oracle_event):
        matched = traced(trace, "Emails__send_email_vs_Emails__send_email", compare)(
            tool_judge, agent, oracle_event
        )
        return Result(matched)

    def judge_call(owner, env):
        owner.state.turn_idx += 1  # ARE's update_state: the judged turn
        counts = traced(trace, "check_tool_call_counts", lambda o, *a: Result(True))(
            owner, {"Emails__send_email": 1}, 0, {"Emails__send_email": 1}, 0, 1
        )
        assert counts.success
        return traced(trace, "matching_AGENT_tool_Emails__send_email", match)(owner, oracle)

    verdict = traced(trace, "judge", judge_call)(judge, None)
    assert verdict == Result(False)  # ARE's answer, untouched
    (turn,) = trace.take()
    assert trace.take() == []
    assert turn["turn_number"] == 1 and turn["success"] is False and turn["counts"]["ok"] is True
    (event,) = turn["oracle_events"]
    assert event["matched"] is False and event["args"] == {
        "recipients": ["maria.garcia@x.com"],
        "subject": "Hi",
    }
    checks = event["attempts"][0]["checks"]
    assert [c["checker"] for c in checks] == ["event_time_checker", "eq_checker"] and checks[1]["ok"] is False
    assert turn["reason"] == "send_email.recipients: expected ['maria.garcia@x.com'], got ['maria@x.com']"


def test_a_judge_that_raises_still_raises() -> None:
    trace = JudgeTrace()

    def boom(owner, env):
        raise RuntimeError("judge engine down")

    with pytest.raises(RuntimeError, match="judge engine down"):
        traced(trace, "judge", boom)(type("J", (), {"state": State()})(), None)


@pytest.mark.parametrize(
    ("turn", "reason"),
    [
        (
            {"counts": {"ok": False, "differing": {"Cabs__order_ride": {"expected": 1, "made": 0}}}},
            "tool calls differ: order_ride ×0 (expected ×1)",
        ),
        (
            {
                "counts": {"ok": True},
                "oracle_events": [{"tool": "Cabs__order_ride", "matched": False, "attempts": []}],
            },
            "order_ride: never called",
        ),
        (
            {
                "oracle_events": [
                    {
                        "tool": "Emails__send_email",
                        "matched": False,
                        "attempts": [
                            {
                                "checks": [
                                    {"checker": "equality_checker", "ok": False, "prefilter": True},
                                    {"checker": "email_checker", "ok": False, "soft": True},
                                ]
                            }
                        ],
                    }
                ]
            },
            "send_email: rejected by ARE's email_checker (LLM check)",
        ),
        (
            {
                "oracle_events": [
                    {
                        "tool": "Emails__send_email",
                        "matched": False,
                        "attempts": [
                            {
                                "checks": [
                                    {
                                        "checker": "event_time_checker",
                                        "ok": False,
                                        "agent": 30.0,
                                        "oracle": 600.0,
                                        "before": 10,
                                        "after": 25,
                                    }
                                ]
                            }
                        ],
                    }
                ]
            },
            "send_email: at 30s, expected 600s (-10s/+25s)",
        ),
        (
            {
                "oracle_events": [
                    {
                        "tool": "Chats__send_message",
                        "matched": False,
                        "attempts": [{"checks": [{"checker": "eq_checker", "ok": True, "arg": "a"}]}],
                    }
                ]
            },
            "send_message: called, but an earlier step it depends on was not matched first",
        ),
    ],
)
def test_reason_lines(turn: dict[str, Any], reason: str) -> None:
    assert reason_line(turn) == reason


class EventType:
    def __init__(self, value: str) -> None:
        self.value = value


@dataclass
class TurnState:
    """ARE's judge state for one judged turn: its oracle events and the agent's, with their types."""

    turn_idx: int = -1
    nb_turns: int = 2
    current_turn_oracle_events: list[Event] = field(default_factory=list)
    current_turn_agent_events: list[Event] = field(default_factory=list)


def judged_with_counts(
    agent: dict[str, int], oracle: dict[str, int], oracle_events: list[Event]
) -> dict[str, Any]:
    """One turn judged the way GraphPerEventJudge does when its count precheck fails."""
    trace = JudgeTrace()
    judge = type("Judge", (), {"state": TurnState(turn_idx=0, current_turn_oracle_events=oracle_events)})()

    def judge_call(owner, env):
        owner.state.turn_idx += 1
        return traced(trace, "check_tool_call_counts", lambda o, *a: Result(False))(
            owner, agent, 0, oracle, 0, 1
        )

    assert traced(trace, "judge", judge_call)(judge, None) == Result(False)
    (turn,) = trace.take()
    return turn


def test_the_users_own_message_is_never_a_missing_agent_call() -> None:
    user = Event(
        "u2", "AgentUserInterface__send_message_to_agent", {"content": "now send it"}, EventType("USER")
    )
    email = Event("o2", "Emails__send_email", {}, EventType("AGENT"))
    turn = judged_with_counts({}, {user.tool_name: 1, email.tool_name: 1}, [user, email])
    assert turn["turn_number"] == 2  # ARE's turn_idx 1, counted from 1
    assert turn["counts"]["differing"][user.tool_name] == {"expected": 1, "made": 0, "by": "user"}
    assert turn["reason"] == "tool calls differ: send_email ×0 (expected ×1)"
    only_user = judged_with_counts({}, {user.tool_name: 1}, [user])
    assert only_user["reason"] == (
        "events not made by the agent differ in this turn: user's send_message_to_agent ×0 (expected ×1)"
    )
    env = Event("e1", "Chats__create_and_add_message", {}, EventType("ENV"))
    assert (
        "environment's create_and_add_message" in judged_with_counts({}, {env.tool_name: 1}, [env])["reason"]
    )


def test_a_validation_ares_refuses_names_the_turn_the_agent_stopped_in() -> None:
    """ARE's validate() before the last turn began: it judges nothing ("Validation called at turn -1
    but nb_turns is 2"); the turn is the one the agent was in, counted from 1."""
    trace = JudgeTrace()
    judge = type("Judge", (), {"state": TurnState(turn_idx=-1, nb_turns=2)})()
    refusal = Result(False)
    assert traced(trace, "judge", lambda owner: refusal)(judge) is refusal  # ARE's answer, untouched
    (turn,) = trace.take()
    assert turn["turn_number"] == 1 and turn["success"] is False
    assert turn["reason"] == (
        "the agent stopped in turn 1 of 2: ARE judges a scenario only after its last turn, which never began"
    )
    judge.state.turn_idx = 0  # turn 1 was judged; the agent stopped in turn 2 of 3
    judge.state.nb_turns = 3
    traced(trace, "judge", lambda owner: refusal)(judge)
    assert trace.take()[0]["reason"].startswith("the agent stopped in turn 2 of 3:")
