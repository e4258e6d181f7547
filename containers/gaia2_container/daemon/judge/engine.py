"""The LLM behind ARE's soft checks, built from GAIA2_JUDGE_* settings.

ARE's GraphPerEventJudge compares arguments exactly first and only asks an LLM when they differ, so
an exact replay (the oracle) needs no judge model. Without a configured judge we install an engine
that fails loudly: a soft check then yields a clear "judge not configured" reason instead of a
silent call to ARE's default model.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from .calls import JudgeCalls, RecordedJudgeEngine
from .refusal import CONTENT_FILTER, ProbeResult, RefusalCheck
from .settings import judge_endpoint


class JudgeNotConfigured(RuntimeError):
    """A soft (LLM) check was needed but no judge model was given to the container."""


class MissingJudgeEngine:
    def __call__(self, messages: list[dict[str, Any]], **_: Any) -> tuple[str, dict | None]:
        raise JudgeNotConfigured(
            "this turn needs ARE's LLM soft check but no judge is configured: "
            "pass --judge-provider/--judge-model (GAIA2_JUDGE_MODEL in the container)"
        )


class JudgeCallError(RuntimeError):
    """The judge provider did not answer; the run has no verdict (infrastructure error)."""


# Characters of the provider's error kept in the run's error line (its text may quote the prompt).
PROVIDER_ERROR_CHARS = 500


class LiteLLMJudgeEngine:
    """Calls the judge model through LiteLLM, as ARE's engine does, but returns the text as is.

    ARE 1.2.0's LiteLLMEngine rewrites "True"/"False" to lower case in every reply, so its own
    sanity checker, which looks for "[[True]]", can never pass: every reworded answer to the user
    would be rejected. Keeping the reply intact lets each checker read the verdict it asked for.
    A failed call goes to `refusals` (refusal.py): a provider refusing the agent's text is a
    failed check, a refusal of the runner's own judge request an infrastructure error.
    """

    def __init__(
        self,
        model: str,
        provider: str,
        base_url: str | None,
        api_key: str | None,
        refusals: RefusalCheck | None = None,
        complete: Callable[..., Any] | None = None,
    ) -> None:
        self.model, self.provider, self.base_url, self.api_key = model, provider, base_url, api_key
        self.refusals = refusals
        self.complete = complete  # LiteLLM's `completion` unless given (tests)

    def __call__(self, messages: list[dict[str, Any]], **_: Any) -> tuple[str, dict | None]:
        if self.complete is None:
            import litellm

            self.complete = litellm.completion
        payload = [
            {"role": str(getattr(m["role"], "value", m["role"])), "content": m.get("content", "")}
            for m in messages
        ]
        try:
            response = self.complete(
                model=self.model,
                custom_llm_provider=self.provider,
                messages=payload,
                api_base=self.base_url,
                api_key=self.api_key,
                num_retries=3,
            )
        except Exception as exc:  # noqa: BLE001 - any provider failure means no verdict (or a refusal)
            failure: Exception | None = exc
        else:
            failure = None
        if failure is not None:
            said = " ".join(str(failure).split())
            said = said if len(said) <= PROVIDER_ERROR_CHARS else said[:PROVIDER_ERROR_CHARS] + "…"
            error = JudgeCallError(
                f"judge provider {self.provider} ({self.base_url or 'default URL'}) failed: "
                f"{type(failure).__name__}: {said}"
            )
            status = getattr(failure, "status_code", None)
            return self._failed(payload, status if isinstance(status, int) else None, said, error), None
        choice = response.choices[0]
        text = choice.message.content
        if text is None:
            finish = getattr(choice, "finish_reason", None)
            error = JudgeCallError(f"judge provider returned an empty reply (finish_reason: {finish})")
            return self._failed(
                payload,
                None,
                f"an empty reply (finish_reason: {finish})",
                error,
                filtered=finish == CONTENT_FILTER,
            ), _usage(response)
        return text, _usage(response)  # ARE's judge ignores this metadata; calls.py records it

    def _failed(
        self,
        payload: list[dict[str, Any]],
        status: int | None,
        said: str,
        error: JudgeCallError,
        filtered: bool = False,
    ) -> str:
        """The refusal's reply (a failed check), else raises (refusal.RefusalCheck decides)."""
        if self.refusals is None:
            raise error
        return self.refusals.after_failure(payload, status, said, error, filtered=filtered)


def _usage(response: Any) -> dict[str, Any]:
    usage = getattr(response, "usage", None)
    return {
        "model": getattr(response, "model", None),
        "prompt_tokens": getattr(usage, "prompt_tokens", None),
        "completion_tokens": getattr(usage, "completion_tokens", None),
    }


def _probe_judge(env: Mapping[str, str]) -> ProbeResult | None:
    """check.probe_judge, imported when a judge call fails: its HTTP stack is no part of a run's start."""
    from .check import probe_judge

    return probe_judge(env)


def build_judge_engine(
    env: dict[str, str] | None = None,
    calls: JudgeCalls | None = None,
    step: Callable[[], str | None] = lambda: None,
) -> Any:
    """The configured judge model, else a stand-in that fails loudly when a soft check is needed;
    with `calls`, every call it makes is recorded there (`step`: which step of ARE's judge asked)."""
    env = dict(os.environ if env is None else env)
    endpoint = judge_endpoint(env)
    if endpoint is None:
        engine: Any = MissingJudgeEngine()
    else:
        engine = LiteLLMJudgeEngine(
            model=endpoint.model,
            provider=endpoint.provider,
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            refusals=RefusalCheck(env, _probe_judge),
        )
    model = endpoint.model if endpoint else None
    return engine if calls is None else RecordedJudgeEngine(engine, calls, model, step)
