"""Agent settings from the environment: which provider and model, and the loop's limits."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from gaia2_contract import constants as contract
from gaia2_contract import providers, urls

from ... import budget


class SettingsError(Exception):
    """A setting is missing or malformed: the runtime exits before calling any model."""


PROVIDERS = providers.MODELS


@dataclass
class Options:
    """GAIA2_AGENT_OPTIONS: a JSON object; unknown keys are an error so typos do not go unnoticed."""

    max_steps_per_turn: int = 40
    max_tokens: int = 4096
    temperature: float | None = None
    max_context_chars: int = 200_000
    max_tool_result_chars: int = 20_000
    request_timeout_s: float = budget.ARE_CLIENT_TIMEOUT_S  # as ARE's own client, within the call window
    max_retries: int = 4
    retry_base_s: float = 1.0
    retry_max_s: float = 60.0
    api: str = "chat"  # openai only: "chat" (Chat Completions) or "responses"
    anthropic_version: str = "2023-06-01"
    extra_body: dict[str, Any] = field(default_factory=dict)  # merged into every request body

    @classmethod
    def parse(cls, text: str | None) -> Options:
        if not text or not text.strip():
            return cls()
        try:
            raw = json.loads(text)
        except ValueError as exc:
            raise SettingsError(f"GAIA2_AGENT_OPTIONS is not valid JSON: {exc}") from None
        if not isinstance(raw, dict):
            raise SettingsError("GAIA2_AGENT_OPTIONS must be a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise SettingsError(
                f"GAIA2_AGENT_OPTIONS: unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        opts = cls(**raw)
        if opts.api not in ("chat", "responses"):
            raise SettingsError(f"GAIA2_AGENT_OPTIONS: api must be 'chat' or 'responses', got {opts.api!r}")
        return opts


@dataclass
class Settings:
    provider: str
    model: str
    base_url: str
    api_key: str | None
    options: Options
    public_base_url: str = ""  # the provider behind the daemon's relay, for traces and messages
    limit_s: float | None = None  # the scenario's time limit: one call with its retries fits its window

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        provider = (env.get(contract.ENV_AGENT_PROVIDER) or providers.DEFAULT).strip().lower()
        if provider not in PROVIDERS:
            raise SettingsError(f"GAIA2_AGENT_PROVIDER={provider!r} is not one of {', '.join(PROVIDERS)}")
        model = (env.get(contract.ENV_AGENT_MODEL) or "").strip()
        if not model:
            raise SettingsError("GAIA2_AGENT_MODEL is not set: name the model to call")
        base_url = (
            (env.get(contract.ENV_AGENT_BASE_URL) or urls.API_BASE_URLS.get(provider, "")).strip().rstrip("/")
        )
        if not base_url:
            raise SettingsError(f"GAIA2_AGENT_BASE_URL is required for provider {provider}")
        api_key = env.get(contract.ENV_AGENT_API_KEY) or None
        if api_key is None and provider != "openai-compat":
            raise SettingsError(f"GAIA2_AGENT_API_KEY is not set (required for provider {provider})")
        public = (env.get(contract.ENV_AGENT_PUBLIC_BASE_URL) or base_url).strip().rstrip("/")
        options = fit_to_scenario(Options.parse(env.get(contract.ENV_AGENT_OPTIONS)), env)
        return cls(provider, model, base_url, api_key, options, public, budget.scenario_timeout(env))


def fit_to_scenario(options: Options, env: Mapping[str, str]) -> Options:
    """Request timeout and retries fitted to the scenario's time limit (budget.py owns the arithmetic)."""
    wanted = budget.CallBudget(options.request_timeout_s, options.max_retries, options.retry_max_s)
    fitted = budget.fit_call(wanted, budget.scenario_timeout(env))
    return replace(
        options,
        request_timeout_s=fitted.timeout_s,
        max_retries=fitted.max_retries,
        retry_max_s=fitted.retry_max_s,
    )
