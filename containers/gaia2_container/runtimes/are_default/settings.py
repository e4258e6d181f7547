"""The engine settings, from the same GAIA2_AGENT_* variables as the built-in agent, mapped onto the
arguments `are-benchmark gaia2-run` takes for an OpenAI-compatible server.

gaia2-run builds its engine with ARE's LLMEngineBuilder from (model, provider, endpoint). For a
chat-completions server that is provider `local` (ARE's LiteLLMEngine) with a LiteLLM model name
`openai/<model>`, the endpoint as `api_base` and the key from OPENAI_API_KEY: here the endpoint is
the daemon's relay (GAIA2_AGENT_BASE_URL), which forwards to the configured server.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass

from gaia2_contract import constants as contract
from gaia2_contract import providers

from ..harness.driver import NO_KEY

PROVIDERS = providers.CHAT_COMPLETIONS
ARE_PROVIDER = "local"  # ARE's LLMEngineBuilder: LiteLLMEngine, the LiteLLM provider from the model name
LITELLM_PREFIX = "openai/"  # LiteLLM's OpenAI-compatible chat completions client
KEY_VARIABLE = "OPENAI_API_KEY"  # where LiteLLM's OpenAI client takes its key from
ARE_AGENT = "default"  # ARE's AgentConfigBuilder name, the only agent gaia2-run accepts
GENERATION_TIME_MODE = "measured"  # gaia2-run's default --simulated_generation_time_mode


class SettingsError(Exception):
    """A setting is missing or malformed: the runtime exits before calling any model."""


@dataclass(frozen=True)
class EngineSettings:
    model: str  # as ARE's LLMEngineConfig.model_name takes it: openai/<model>
    endpoint: str  # the relay
    api_key: str

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> EngineSettings:
        env = os.environ if env is None else env
        provider = (env.get(contract.ENV_AGENT_PROVIDER) or providers.OPENAI_COMPAT).strip().lower()
        if provider not in PROVIDERS:
            raise SettingsError(
                f"GAIA2_AGENT_PROVIDER={provider!r}: ARE's default agent runs here on a chat "
                f"completions endpoint: use {', '.join(PROVIDERS)}"
            )
        model = (env.get(contract.ENV_AGENT_MODEL) or "").strip()
        if not model:
            raise SettingsError("GAIA2_AGENT_MODEL is not set: name the model to call")
        endpoint = (env.get(contract.ENV_AGENT_BASE_URL) or "").strip().rstrip("/")
        if not endpoint:
            raise SettingsError("GAIA2_AGENT_BASE_URL is not set (the daemon points it at its model relay)")
        options = (env.get(contract.ENV_AGENT_OPTIONS) or "").strip()
        if options and _parsed(options) != {}:
            raise SettingsError(
                "GAIA2_AGENT_OPTIONS: ARE's default agent takes no options: it runs with "
                "gaia2-run's own settings (docs/reference/are-default-agent.md)"
            )
        return cls(LITELLM_PREFIX + model, endpoint, env.get(contract.ENV_AGENT_API_KEY) or NO_KEY)


def _parsed(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None
