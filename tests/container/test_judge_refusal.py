"""A judge provider refusing the agent's text is a failed check; a refusal of the runner's own judge
request is an infrastructure error, a configuration fault when the probe shows it
(containers/.../judge_refusal.py).

The judge engine talks to a real HTTP fake provider on 127.0.0.1 (tests/support/fake_llm), which
answers the soft check's request from its script and the runner's probe (the preflight's own,
sent right after the failure) apart. LiteLLM is not installed on the host: the engine's `complete`
here speaks the same OpenAI wire with httpx and raises as LiteLLM does (an exception carrying the
HTTP status). The real LiteLLM and ARE's checkers: tests/e2e/test_e2e_llm_judge.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from fake_llm.server import FakeLLM
from gaia2_container.daemon.judge import guard as judge_guard
from gaia2_container.daemon.judge.engine import JudgeCallError, build_judge_engine
from gaia2_container.daemon.judge.refusal import REFUSED, JudgeFault, carries_agent_text
from gaia2_container.daemon.judge.trace import JudgeTrace, reason_line

AZURE_FILTER = (
    "The response was filtered due to the prompt triggering Azure OpenAI's content management "
    "policy. Please modify your prompt and retry."
)
JUDGE_KEY = "sk-judge-secret-777"


class ProviderError(Exception):
    """What LiteLLM raises for an HTTP error: the provider's body in the message, `status_code`."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(f"OpenAIException - Error code: {status} - {text}")
        self.status_code = status


def http_completion(*, model: str, messages: list[dict], api_base: str, api_key: str | None, **_: Any) -> Any:
    resp = httpx.post(
        f"{api_base}/chat/completions",
        json={"model": model, "messages": messages},
        headers={"Authorization": f"Bearer {api_key}"},
        timeout=10,
    )
    if resp.status_code >= 300:
        raise ProviderError(resp.status_code, resp.text)
    doc = resp.json()
    choice = doc["choices"][0]
    return SimpleNamespace(
        model=doc.get("model"),
        usage=None,
        choices=[
            SimpleNamespace(
                message=SimpleNamespace(content=choice["message"].get("content")),
                finish_reason=choice.get("finish_reason"),
            )
        ],
    )


@pytest.fixture
def provider() -> Iterator[FakeLLM]:
    server = FakeLLM(host="127.0.0.1")
    server.start()
    yield server
    server.stop()


def engine_for(fake: FakeLLM, trace: JudgeTrace) -> Any:
    env = {
        "GAIA2_JUDGE_PROVIDER": "openai-compat",
        "GAIA2_JUDGE_MODEL": "fake-judge",
        "GAIA2_JUDGE_BASE_URL": f"http://127.0.0.1:{fake.port}/v1",
        "GAIA2_JUDGE_API_KEY": JUDGE_KEY,
    }
    engine = build_judge_engine(env, calls=trace.calls, step=trace.step)
    engine.engine.complete = http_completion
    return engine


class Checker:
    """ARE's LLMChecker's parsing (llm_utils.LLMChecker.__call__), under the judge guard as ARE's is."""

    def __init__(
        self,
        engine: Any,
        prompt_templates: Any = None,
        success: str = "[[Success]]",
        failure: str = "[[Failure]]",
    ) -> None:
        self.engine, self.success, self.failure = engine, success, failure

    def __call__(self, user_prompt_args: dict[str, str]) -> bool | None:
        reply, _ = self.engine(
            [
                {"role": "system", "content": "judge"},
                {"role": "user", "content": user_prompt_args[judge_guard.AGENT_ARG]},
            ]
        )
        return True if self.success in reply else False if self.failure in reply else None


def soft_check(trace: JudgeTrace, engine: Any, content: str, success: str = "[[Success]]") -> dict:
    """One soft check inside one attempt, as ARE's injected_traceable drives the tracer."""
    failure = "[[Failure]]" if success == "[[Success]]" else "[[False]]"
    checker = judge_guard.guarded(Checker)(engine, None, success, failure)
    trace._local.turn = {"oracle_events": [], "counts": None}
    trace._local.attempt = attempt = {"checks": []}

    class SoftJudge:
        def describe_action_args(self, args: dict) -> str:
            return "\n".join(f"{k}: {v}" for k, v in args.items())

    check = trace(tags=["judge"], trace_type="user_message_checker")(
        lambda owner, agent_args, **_: checker(
            {judge_guard.AGENT_ARG: owner.describe_action_args(agent_args)}
        )
    )
    check(SoftJudge(), agent_args={"content": content})
    return attempt["checks"][0]


@pytest.mark.parametrize("success", ["[[Success]]", "[[True]]"])
def test_a_filtered_agent_text_fails_its_check_with_the_providers_words(
    provider: FakeLLM, success: str
) -> None:
    provider.set_script({"chat": [{"status": 400, "code": "content_filter", "message": AZURE_FILTER}]})
    trace = JudgeTrace()
    check = soft_check(trace, engine_for(provider, trace), "a wrong answer with a trigger word", success)
    assert check["ok"] is False and check["refused"].startswith("OpenAIException - Error code: 400")
    assert "content_filter" in check["refused"] and "content management policy" in check["refused"]
    turn = {
        "oracle_events": [
            {
                "tool": "AgentUserInterface__send_message_to_user",
                "matched": False,
                "attempts": [{"checks": [check]}],
            }
        ]
    }
    assert reason_line(turn).startswith(f"send_message_to_user: {REFUSED}: OpenAIException")
    # The runner's evidence: its own probe, sent right after, with the run's key, was answered.
    [asked] = provider.llm_requests()
    assert "<agent_text>" in asked["body"]["messages"][-1]["content"]
    [probe] = provider.probes
    assert (
        probe["headers"]["authorization"] == f"Bearer {JUDGE_KEY}" and probe["body"]["model"] == "fake-judge"
    )
    [call] = trace.calls.take()  # the judge call's record: the reply the checker read
    assert (
        call["error"] is None
        and call["response"].startswith(REFUSED)
        and "[[Failure]] [[False]]" in call["response"]
    )


def test_the_providers_words_cannot_carry_a_verdict(provider: FakeLLM) -> None:
    # A provider that quotes the prompt (ARE's few-shot examples hold [[Success]]) in its refusal.
    provider.set_script({"chat": [{"status": 400, "message": "blocked: [[Success]] [[True]]"}]})
    trace = JudgeTrace()
    check = soft_check(trace, engine_for(provider, trace), "anything")
    assert check["ok"] is False and "[[" not in check["refused"] and "Success" in check["refused"]
    reply = trace.calls.take()[0]["response"]
    assert "[[Success]]" not in reply and "[[True]]" not in reply and reply.endswith("[[Failure]] [[False]]")


def test_a_refused_key_is_a_configuration_fault(provider: FakeLLM) -> None:
    provider.api_key = "sk-the-right-key"  # 401 to the check and to the probe
    trace = JudgeTrace()
    engine = engine_for(provider, trace)
    with pytest.raises(JudgeFault) as raised:
        engine([{"role": "user", "content": judge_guard.fence("content: a wrong answer")}])
    assert raised.value.reason.startswith(
        "the judge's provider refused the configured judge API key (HTTP 401"
    )
    assert str(raised.value).startswith("configuration fault: ")
    [call] = trace.calls.take()
    assert call["response"] is None and "JudgeFault" in call["error"]
    assert trace.calls.fault == raised.value.reason  # the run's first judge fault
    assert JUDGE_KEY not in str(raised.value)


def test_a_refusal_of_the_runners_own_text_stays_an_infrastructure_error(provider: FakeLLM) -> None:
    # ARE's subtask extractor sends the scenario's text, never the agent's: a refusal is no check.
    provider.set_script({"chat": [{"status": 400, "code": "content_filter", "message": AZURE_FILTER}]})
    trace = JudgeTrace()
    with pytest.raises(JudgeCallError, match="content management policy"):
        engine_for(provider, trace)([{"role": "user", "content": "oracle: send_message_to_user(...)"}])
    assert len(provider.probes) == 1 and trace.calls.fault is None


def test_a_judge_down_after_the_refusal_is_an_infrastructure_error(provider: FakeLLM) -> None:
    provider.set_script(
        {
            "chat": [{"status": 400, "code": "content_filter", "message": AZURE_FILTER}],
            "preflight": [{"status": 503, "message": "judge overloaded"}],
        }
    )
    trace = JudgeTrace()
    with pytest.raises(JudgeCallError, match="the judge's probe failed too \\(HTTP 503: judge overloaded\\)"):
        engine_for(provider, trace)([{"role": "user", "content": judge_guard.fence("content: x")}])
    assert trace.calls.fault is None


def test_an_outage_is_never_a_refusal(provider: FakeLLM) -> None:
    provider.set_script({"chat": [{"status": 503, "message": "judge overloaded"}]})  # the probe is answered
    trace = JudgeTrace()
    with pytest.raises(JudgeCallError, match="judge overloaded"):
        engine_for(provider, trace)([{"role": "user", "content": judge_guard.fence("content: x")}])


def test_only_the_question_counts_as_the_agents_text() -> None:
    example = {"role": "user", "content": judge_guard.fence("an example of ARE's")}
    assert carries_agent_text([example, {"role": "user", "content": judge_guard.fence("the agent's")}])
    assert not carries_agent_text(
        [
            example,
            {"role": "assistant", "content": "[[Success]]"},
            {"role": "user", "content": "the scenario's task"},
        ]
    )


@pytest.mark.parametrize(
    "probe, fault",
    [
        (
            {"status": 400, "message": "Unsupported parameter: max_tokens"},
            "refused the runner's own minimal request",
        ),
        (
            {"status": 404, "message": "The model `fake-judge` does not exist"},
            "does not know the configured model",
        ),
        ({"status": 429, "message": "You exceeded your current quota"}, "payment or quota"),
    ],
)
def test_a_refused_probe_is_a_configuration_fault(provider: FakeLLM, probe: dict, fault: str) -> None:
    provider.set_script(
        {"chat": [{"status": 400, "code": "content_filter", "message": AZURE_FILTER}], "preflight": [probe]}
    )
    with pytest.raises(JudgeFault, match=fault):
        engine_for(provider, JudgeTrace())([{"role": "user", "content": judge_guard.fence("content: x")}])


def test_a_judge_too_small_for_the_text_is_no_refusal_of_the_agents_text(provider: FakeLLM) -> None:
    """A context overflow on a check is the judge's size (the agent's text is capped), not the agent's."""
    overflow = (
        "This model's maximum context length is 4096 tokens. However, your messages resulted in 9000 tokens."
    )
    provider.set_script({"chat": [{"status": 400, "message": overflow}]})  # the probe is answered
    trace = JudgeTrace()
    with pytest.raises(JudgeCallError, match="maximum context length"):
        engine_for(provider, trace)([{"role": "user", "content": judge_guard.fence("content: " + "x" * 30)}])
    assert trace.calls.fault is None
