"""The judge room: ARE's judge on our engine (engine.py) from the run's settings (settings.py), its
calls recorded (calls.py) and traced
step by step (trace.py), agent text fenced and capped in its prompts (guard.py), provider
refusals told apart from the agent's (refusal.py), the session's hooks into it (hooks.py).
The public surface: attach the judge to a scenario (loader.py live, rejudge.py offline) and
check its endpoint (check.py: preflight.py, refusal.py)."""

from typing import Any

from .hooks import clean_rationale
from .prepare import attach_judge, install_guard, noise_configs
from .trace import JudgeTrace


def __getattr__(name: str) -> Any:
    """`check_judge` on first use: its probe's HTTP stack (httpx) is no part of a run's start."""
    if name == "check_judge":
        from .check import check_judge

        return check_judge
    raise AttributeError(name)


__all__ = ["JudgeTrace", "attach_judge", "check_judge", "clean_rationale", "install_guard", "noise_configs"]
