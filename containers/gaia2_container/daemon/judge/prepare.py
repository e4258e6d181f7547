"""Attaching ARE's judge to a scenario, the one way both a live run (loader.py) and the offline
re-judge (rejudge.py) do it: ARE's preprocess_scenario with our judge engine and tracer, the
benchmark's scenario duration and, with noise on, `--noise`'s configs."""

from __future__ import annotations

from typing import Any

from . import guard
from .engine import build_judge_engine
from .trace import JudgeTrace


def install_guard() -> None:
    """Bounded, fenced agent text in the judge's prompts (judge/guard.py); before ARE judges."""
    guard.install()


def noise_configs() -> tuple[Any, Any]:
    """ARE's noise mode, as are.simulation.cli.utils.create_noise_configs builds it for
    `are-benchmark --noise`: 10% random tool failures, augmented tool names and descriptions,
    10 random ENV events per minute (seed 0)."""
    from are.simulation.scenarios.utils.scenario_expander import EnvEventsConfig
    from are.simulation.types import ToolAugmentationConfig

    return ToolAugmentationConfig(), EnvEventsConfig(num_env_events_per_minute=10, env_events_seed=0)


def attach_judge(scenario: Any, noise: bool, offline: bool = False) -> JudgeTrace:
    """Preprocess `scenario` with a GraphPerEventJudge on our engine; the trace observes every
    step of the judge (failure diff) and never changes a decision. `offline`: judge a finished
    run's completed events (ARE's judge_only), not a live one. Raises what ARE raises."""
    from are.simulation.scenarios.config import MAX_SCENARIO_DURATION, MAX_TIME_SCENARIO_DURATION
    from are.simulation.scenarios.scenario_imported_from_json.utils import (
        get_scenario_duration,
        preprocess_scenario,
    )
    from are.simulation.validation.configs import GraphPerEventJudgeConfig

    trace = JudgeTrace()
    tool_augmentation, env_events = noise_configs() if noise else (None, None)
    engine = build_judge_engine(calls=trace.calls, step=trace.step)
    extra = {"offline_validation": True} if offline else {}
    preprocess_scenario(
        scenario,
        judge_config=GraphPerEventJudgeConfig(engine=engine, tracer=trace),
        max_scenario_duration=get_scenario_duration(
            scenario, MAX_TIME_SCENARIO_DURATION, MAX_SCENARIO_DURATION
        ),
        tool_augmentation_config=tool_augmentation,
        env_events_config=env_events,
        **extra,
    )
    return trace
