"""The judge model's calls as the daemon records them (judge_calls.py): what goes in and comes out of
the engine is unchanged, each call is kept with its step, texts are capped, a run keeps MAX_CALLS
(the real judge through the fake provider: tests/e2e/test_e2e_llm_judge.py)."""

from __future__ import annotations

from typing import Any

import pytest

from gaia2_container.daemon.judge import calls as judge_calls
from gaia2_container.daemon.judge.engine import JudgeNotConfigured, LiteLLMJudgeEngine, build_judge_engine
from gaia2_container.daemon.judge.guard import AGENT_TEXT_CAP
from gaia2_container.daemon.judge.trace import JudgeTrace

JUDGE_ENV = {
    "GAIA2_JUDGE_MODEL": "judge-x",
    "GAIA2_JUDGE_BASE_URL": "http://judge.invalid/v1",
    "GAIA2_JUDGE_API_KEY": "sk-judge-never-recorded-123",
}


class Scripted:
    """Stands in for the provider behind the engine: one reply with its usage, or an error."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error

    def __call__(self, messages: list[dict[str, Any]], **_: Any) -> tuple[str, dict | None]:
        if self.error is not None:
            raise self.error
        return "[[Success]]", {"model": "judge-x-2025", "prompt_tokens": 120, "completion_tokens": 7}


def engine_with(inner: Scripted, trace: JudgeTrace) -> Any:
    engine = build_judge_engine(JUDGE_ENV, calls=trace.calls, step=trace.step)
    engine.engine = inner  # the provider replaced; the recording wrapper is the daemon's
    return engine


def test_a_call_is_recorded_with_its_step_and_returned_unchanged() -> None:
    trace = JudgeTrace()
    engine = engine_with(Scripted(), trace)

    class Checker:  # a step of ARE's judge, decorated with the tracer as ARE's injected_traceable does
        @trace(trace_type="email_checker")
        def check(self, text: str) -> tuple[str, dict | None]:
            return engine([{"role": "system", "content": "judge"}, {"role": "user", "content": text}])

    assert Checker().check("Booked.") == (
        "[[Success]]",
        {"model": "judge-x-2025", "prompt_tokens": 120, "completion_tokens": 7},
    )
    [call] = trace.calls.take()
    assert call["step"] == "email_checker" and call["model"] == "judge-x-2025"
    assert call["messages"] == [
        {"role": "system", "content": "judge"},
        {"role": "user", "content": "Booked."},
    ]
    assert (call["response"], call["prompt_tokens"], call["completion_tokens"], call["error"]) == (
        "[[Success]]",
        120,
        7,
        None,
    )
    assert isinstance(call["duration_ms"], int) and "sk-judge" not in repr(call)
    assert trace.calls.take() == []  # taken once


def test_an_error_is_recorded_and_raised_as_it_was() -> None:
    trace = JudgeTrace()
    engine = engine_with(Scripted(RuntimeError("judge overloaded " + "x" * 2000)), trace)
    with pytest.raises(RuntimeError, match="judge overloaded"):
        engine([{"role": "user", "content": "q"}])
    [call] = trace.calls.take()
    assert call["response"] is None and call["error"].startswith("RuntimeError: judge overloaded")
    assert len(call["error"]) < judge_calls.ERROR_CHARS + 40 and call["model"] == "judge-x"


def test_no_judge_configured_is_a_recorded_call_too() -> None:
    trace = JudgeTrace()
    engine = build_judge_engine({}, calls=trace.calls)
    with pytest.raises(JudgeNotConfigured):
        engine([{"role": "user", "content": "q"}])
    assert "no judge is configured" in trace.calls.take()[0]["error"]


def test_texts_and_calls_are_capped() -> None:
    trace = JudgeTrace()
    engine = engine_with(Scripted(), trace)
    for _ in range(judge_calls.MAX_CALLS + 3):
        engine([{"role": "user", "content": "y" * (AGENT_TEXT_CAP + 50)}])
    calls = trace.calls.take()
    assert len(calls) == judge_calls.MAX_CALLS and calls[-1]["calls_dropped"] == 3
    assert calls[0]["messages"][0]["content"].endswith("… (50 more characters)")


def test_without_a_log_the_engine_is_the_plain_one() -> None:
    assert isinstance(build_judge_engine(JUDGE_ENV), LiteLLMJudgeEngine)  # preflight probes this one
