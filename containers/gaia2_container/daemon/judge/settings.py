"""The judge's settings as the container receives them (GAIA2_JUDGE_*), resolved once to the
endpoint LiteLLM is called with: the engine (engine.py) calls it, the probes (check.py) check it."""

from __future__ import annotations

import os
from dataclasses import dataclass

from gaia2_contract import providers
from gaia2_contract.constants import JUDGE_ENV_PREFIX

# Our provider names -> LiteLLM's `custom_llm_provider` (chat-completions endpoints are "openai");
# "openai-completions", "local" and "google" are aliases the judge also accepts.
LITELLM_PROVIDERS = {
    providers.OPENAI: "openai",
    providers.OPENAI_COMPAT: "openai",
    "openai-completions": "openai",
    "local": "openai",
    providers.ANTHROPIC: "anthropic",
    providers.GEMINI: "gemini",
    "google": "gemini",
    providers.OPENROUTER: "openrouter",
}


def judge_settings_from_env(env: dict[str, str] | None = None) -> dict[str, str | None]:
    """GAIA2_JUDGE_MODEL / _PROVIDER / _BASE_URL / _API_KEY; empty values count as unset."""
    env = dict(os.environ if env is None else env)
    return {
        "model": env.get(JUDGE_ENV_PREFIX + "MODEL") or None,  # GAIA2_JUDGE_MODEL
        "provider": env.get(JUDGE_ENV_PREFIX + "PROVIDER") or None,
        "base_url": env.get(JUDGE_ENV_PREFIX + "BASE_URL") or None,
        "api_key": env.get(JUDGE_ENV_PREFIX + "API_KEY") or None,
    }


@dataclass(frozen=True)
class JudgeEndpoint:
    """What the judge's LiteLLM call is given: `provider` is LiteLLM's name for it."""

    model: str
    provider: str
    base_url: str | None
    api_key: str | None


def judge_endpoint(env: dict[str, str] | None = None) -> JudgeEndpoint | None:
    """The configured judge (None: no judge model). A local server needs no key: LiteLLM gets "none"."""
    settings = judge_settings_from_env(env)
    if not settings["model"]:
        return None
    provider = settings["provider"] or "openai"
    return JudgeEndpoint(
        model=settings["model"],
        provider=LITELLM_PROVIDERS.get(provider, provider),
        base_url=settings["base_url"],
        api_key=settings["api_key"] or ("none" if settings["base_url"] else None),
    )
