"""The LLM behind ARE's soft checks, built from GAIA2_JUDGE_* settings.

ARE's GraphPerEventJudge compares arguments exactly first and only asks an LLM when they differ, so
an exact replay (the oracle) needs no judge model. Without a configured judge we install an engine
that fails loudly: a soft check then yields a clear "judge not configured" reason instead of a
silent call to ARE's default model.
"""

from __future__ import annotations

import os
from typing import Any


class JudgeNotConfigured(RuntimeError):
    """A soft (LLM) check was needed but no judge model was given to the container."""


class MissingJudgeEngine:
    def __call__(self, messages: list[dict[str, Any]], **_: Any) -> tuple[str, dict | None]:
        raise JudgeNotConfigured(
            "this turn needs ARE's LLM soft check but no judge is configured: "
            "pass --judge-provider/--judge-model (GAIA2_JUDGE_MODEL in the container)"
        )


def judge_settings_from_env(env: dict[str, str] | None = None) -> dict[str, str | None]:
    env = dict(os.environ if env is None else env)
    return {
        "model": env.get("GAIA2_JUDGE_MODEL") or None,
        "provider": env.get("GAIA2_JUDGE_PROVIDER") or None,
        "base_url": env.get("GAIA2_JUDGE_BASE_URL") or None,
    }


def build_judge_engine(env: dict[str, str] | None = None) -> Any:
    """ARE's LiteLLM engine when a judge model is configured, else the failing stand-in."""
    settings = judge_settings_from_env(env)
    if not settings["model"]:
        return MissingJudgeEngine()
    from are.simulation.agents.are_simulation_agent_config import LLMEngineConfig
    from are.simulation.validation.configs import create_judge_engine

    return create_judge_engine(
        LLMEngineConfig(
            model_name=settings["model"],
            provider=settings["provider"],
            endpoint=settings["base_url"],
        )
    )
