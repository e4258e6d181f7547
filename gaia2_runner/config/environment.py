"""The host variables that stand in for a setting nobody gave: $GAIA2_ENGINE for `engine`,
$GAIA2_SWEEP for `sweep`. Read here and nowhere else: the settings' defaults are these functions
(config/schema.py), so a loaded config holds the resolved value and the sandbox takes it as given;
commands without a config (images, clean, …) ask the same functions.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from gaia2_runner.config.engines import AUTO, ENGINE_ENV, ENGINES
from gaia2_runner.errors import Gaia2Error

SWEEP_ENV = "GAIA2_SWEEP"  # 0/false/no/off: invocations never remove leftovers by themselves
_OFF, _ON = ("0", "false", "no", "off"), ("1", "true", "yes", "on", "")
ENGINE_CHOICES = (*ENGINES, AUTO)


def engine_problem(value: str) -> str | None:
    """The setting's words for a value that names no engine (the value shown short); None if fine."""
    if value in ENGINE_CHOICES:
        return None
    return f"unknown engine {value[:40]!r}: use {', '.join(ENGINE_CHOICES)}"


def engine_from_env(environ: Mapping[str, str] | None = None) -> str:
    """$GAIA2_ENGINE, else auto."""
    raw = (os.environ if environ is None else environ).get(ENGINE_ENV, "").strip()
    if not raw:
        return AUTO
    problem = engine_problem(raw)
    if problem is not None:
        raise Gaia2Error(f"{ENGINE_ENV}: {problem}")
    return raw


def sweep_from_env(environ: Mapping[str, str] | None = None) -> bool:
    """$GAIA2_SWEEP, else on."""
    raw = (os.environ if environ is None else environ).get(SWEEP_ENV, "").strip().lower()
    if raw not in _OFF + _ON:
        raise Gaia2Error(
            f"{SWEEP_ENV}={raw[:40]!r}: use 0 (never remove leftovers by itself) or 1 (the default)"
        )
    return raw not in _OFF


def engine_requested(setting: str | None, environ: Mapping[str, str] | None = None) -> tuple[str, str | None]:
    """The engine asked for and whether the environment asked (ENGINE_ENV) or nobody did (None)."""
    if setting is not None:
        return setting, None
    env = os.environ if environ is None else environ
    engine = engine_from_env(env)
    return engine, (ENGINE_ENV if env.get(ENGINE_ENV, "").strip() else None)


def sweep_requested(setting: bool | None, environ: Mapping[str, str] | None = None) -> bool:
    """The setting when given, else $GAIA2_SWEEP, else yes."""
    return setting if setting is not None else sweep_from_env(environ)
