"""The run configuration as typed, frozen dataclasses: `[target] [agent] [judge] [run]`.

The section classes are made from the settings table (config/schema.py): one field per setting,
named by its TOML key, typed and defaulted by its declaration. A setting is declared there once and
appears here by itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field, make_dataclass
from pathlib import Path
from typing import Any

from gaia2_runner.config.defaults import default_concurrency
from gaia2_runner.config.schema import BY_NAME, SECTIONS, SETTINGS

__all__ = [
    "AgentConfig",
    "JudgeConfig",
    "RunConfig",
    "RunSettings",
    "TargetConfig",
    "default_concurrency",
    "setting_default",
]


def _section(class_name: str, section: str, doc: str) -> type:
    fields = [(s.key, s.annotation, s.field()) for s in SETTINGS if s.section == section]
    cls = make_dataclass(class_name, fields, frozen=True, namespace={"__doc__": doc})
    cls.__module__ = __name__
    return cls


TargetConfig = _section(
    "TargetConfig", "target", "What to run: one scenario, a hub dataset or a local directory."
)
AgentConfig = _section(
    "AgentConfig", "agent", "The agent under test: image, provider, model, its key and options."
)
JudgeConfig = _section("JudgeConfig", "judge", "The model behind ARE's LLM soft checks.")
RunSettings = _section("RunSettings", "run", "How the job runs: times, limits, repetitions, output, hosts.")
_CLASSES = dict(zip(SECTIONS, (TargetConfig, AgentConfig, JudgeConfig, RunSettings)))


@dataclass(frozen=True)
class RunConfig:
    target: TargetConfig = field(default_factory=TargetConfig)  # type: ignore[valid-type]
    agent: AgentConfig = field(default_factory=AgentConfig)  # type: ignore[valid-type]
    judge: JudgeConfig = field(default_factory=JudgeConfig)  # type: ignore[valid-type]
    run: RunSettings = field(default_factory=RunSettings)  # type: ignore[valid-type]
    source: Path | None = None
    origins: dict[str, str] = field(default_factory=dict)  # setting name -> where it was set

    def where(self, name: str) -> str:
        return self.origins.get(name) or BY_NAME[name].flag

    def value(self, name: str) -> Any:
        """A setting's value by its name (`judge_model` is judge.model)."""
        setting = BY_NAME[name]
        return getattr(getattr(self, setting.section), setting.key)


def setting_default(name: str) -> Any:
    """A setting's default as the config classes hold it (for `--help`; one source of truth)."""
    setting = BY_NAME[name]
    value = getattr(_CLASSES[setting.section](), setting.key)
    return str(value) if isinstance(value, Path) else value
