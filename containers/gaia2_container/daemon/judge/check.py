"""The judge's endpoint checked as the daemon's judge engine calls it: the preflight's judge
probe (preflight.py) and the judge's own check of a refusal (refusal.py) send this request."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from gaia2_contract import providers, urls
from gaia2_contract.constants import ENV_JUDGE_API_KEY

from ...probes import (
    DETAIL_CHARS,
    MIN_REQUEST_S,
    TEXT_MAX_TOKENS,
    TEXT_PROMPT,
    Endpoint,
    OneShot,
    Probe,
    Scrub,
    ask_probe,
)
from ...runtimes.llm.messages import Message
from ...runtimes.llm.providers.openai_chat import ChatCompletionsProvider
from ...runtimes.llm.settings import Options, Settings
from ...runtimes.llm.trace import public_url
from .refusal import PROBE_BUDGET_S, ProbeResult
from .settings import judge_endpoint

# LiteLLM providers (engine.LITELLM_PROVIDERS values) that speak OpenAI Chat Completions,
# with LiteLLM's default base URL for each.
JUDGE_OPENAI_URLS = {name: urls.API_BASE_URLS[name] for name in (providers.OPENAI, providers.OPENROUTER)}


def probe_judge(env: Mapping[str, str], budget_s: float = PROBE_BUDGET_S) -> ProbeResult | None:
    """The preflight's judge probe with the run's settings (None: no judge configured); the judge's
    refusal check (refusal.RefusalCheck) asks it after a failed call."""
    endpoint = check_judge(env, time.monotonic() + budget_s, Scrub([env.get(ENV_JUDGE_API_KEY)]))
    if endpoint is None or endpoint.probe is None:
        return None
    probe = endpoint.probe
    return ProbeResult(probe.ok, probe.status, probe.detail or probe.failure or "")


def check_judge(env: Mapping[str, str], deadline: float, redact: Callable[[str], str]) -> Endpoint | None:
    """The judge as the daemon's judge engine calls it (same model, provider, URL, key). LiteLLM's
    OpenAI-wire providers POST {base}/chat/completions, which the chat provider class sends here
    without LiteLLM's import (seconds); Anthropic and Gemini judges go through LiteLLM itself."""
    engine = judge_endpoint(dict(env))
    if engine is None:
        return None
    base = (engine.base_url or JUDGE_OPENAI_URLS.get(engine.provider, "")).rstrip("/")
    endpoint = Endpoint(
        "judge", public_url(base), public_url(base), engine.model, f"litellm:{engine.provider}", "none"
    )
    if base and engine.provider in JUDGE_OPENAI_URLS:
        transport = OneShot(deadline, redact)
        settings = Settings(
            engine.provider, engine.model, base, engine.api_key, Options(max_tokens=TEXT_MAX_TOKENS)
        )
        # OpenAI's own API refuses max_tokens for its reasoning models (the judge sends no limit at
        # all): the probe sends max_completion_tokens there, max_tokens to compatible servers.
        own_api = engine.provider == "openai" and not engine.base_url
        llm = ChatCompletionsProvider(settings, transport, name="openai" if own_api else "openai-compat")
        endpoint.probe = ask_probe(lambda: llm.complete([Message("user", TEXT_PROMPT)], []))
        endpoint.url = public_url(transport.url)
        return endpoint
    started = time.monotonic()
    try:
        import litellm

        litellm.completion(
            model=engine.model,
            custom_llm_provider=engine.provider,
            api_base=engine.base_url,
            api_key=engine.api_key,
            messages=[{"role": "user", "content": TEXT_PROMPT}],
            max_tokens=TEXT_MAX_TOKENS,
            num_retries=0,
            timeout=max(MIN_REQUEST_S, deadline - time.monotonic()),
        )
        probe = Probe(200)
    except Exception as exc:  # noqa: BLE001 - every LiteLLM failure is a fact to report
        probe = _litellm_probe(exc, redact)
    probe.seconds = round(time.monotonic() - started, 2)
    endpoint.probe = probe
    return endpoint


def _litellm_probe(exc: Exception, redact: Callable[[str], str]) -> Probe:
    import litellm

    detail = redact(" ".join(str(exc).split())[:DETAIL_CHARS])
    if isinstance(exc, litellm.Timeout):  # a subclass of APIConnectionError: first
        return Probe(None, "timeout", detail)
    status = getattr(exc, "status_code", None)
    if isinstance(exc, litellm.APIConnectionError) or not isinstance(status, int):
        return Probe(None, "connect", detail)
    return Probe(status, None, detail)
