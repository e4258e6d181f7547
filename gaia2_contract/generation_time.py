"""Simulated generation time: how the scenario's clock treats the agent's model calls.

ARE's `gaia2-run` (`--simulated_generation_time_mode`, default `measured`) pauses the environment
while its agent waits for the model and, on resume, advances the clock by the generation's
duration (`measured`) or by a constant (`fixed`). The runner does the same for every runtime at its
model relay (daemon/generation_clock.py); `off` keeps the clock running during generation at the
run's time speed. The host normalises the setting once (`--sim-generation-time`) and sends the
normal form in ENV_SIM_GENERATION_TIME; the daemon parses it with the same function.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MEASURED, FIXED, OFF = "measured", "fixed", "off"
MODES = (MEASURED, FIXED, OFF)
DEFAULT_SIM_GENERATION_TIME = MEASURED  # gaia2-run's (and the leaderboard's) default
MAX_FIXED_SECONDS = 3600.0  # fixed:N takes 0 <= N <= this many simulated seconds per model call
SYNTAX = "measured, off or fixed:N (N simulated seconds per model call, 0 to 3600)"


@dataclass(frozen=True)
class GenerationTime:
    """One parsed setting: `mode` in MODES; `seconds` only for fixed."""

    mode: str = DEFAULT_SIM_GENERATION_TIME
    seconds: float | None = None

    @property
    def holds(self) -> bool:
        """Whether the clock stands still while a model call is in flight."""
        return self.mode != OFF

    def __str__(self) -> str:
        return f"{FIXED}:{self.seconds:g}" if self.mode == FIXED else self.mode


def parse_generation_time(raw: str | None) -> GenerationTime:
    """`measured`, `off` or `fixed:N` (case and spaces ignored; None or empty: the default).
    Raises ValueError with the accepted syntax."""
    text = (raw or "").strip().lower().replace(" ", "")
    if not text:
        return GenerationTime()
    if text in (MEASURED, OFF):
        return GenerationTime(text)
    mode, sep, number = text.partition(":")
    if mode == FIXED and sep:
        try:
            seconds = float(number)
        except ValueError:
            seconds = math.nan
        if 0 <= seconds <= MAX_FIXED_SECONDS:  # also rejects nan and inf
            return GenerationTime(FIXED, seconds)
    raise ValueError(f"must be {SYNTAX}, got {raw!r}")
