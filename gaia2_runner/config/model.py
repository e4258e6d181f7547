"""The run configuration as typed, frozen dataclasses: `[target] [agent] [judge] [run]`.

One field per setting of the settings table (config/schema.py), named by its TOML key, holding the
value once parsed: paths as Path, `hosts` as HostSpec entries, `shard` as a Shard, `engine` and
`sweep` with their host variables already applied. The table stays the owner of names, flags,
defaults and help; tests/unit/test_config_model.py fails when a field and a setting disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaia2_contract import providers
from gaia2_runner.config import defaults as D
from gaia2_runner.config.defaults import default_concurrency
from gaia2_runner.config.environment import engine_from_env, sweep_from_env
from gaia2_runner.config.schema import BY_NAME
from gaia2_runner.config.values import HostSpec, Shard

__all__ = [
    "AgentConfig",
    "JudgeConfig",
    "RunConfig",
    "RunSettings",
    "TargetConfig",
    "default_concurrency",
    "setting_default",
]


@dataclass(frozen=True)
class TargetConfig:
    """What to run: one scenario, a hub dataset or a local directory."""

    scenario: Path | None = None
    dataset: str | None = None
    dataset_root: Path | None = None
    splits: list[str] | None = None
    subset: Path | None = None
    limit: int | None = None
    revision: str | None = None
    config: list[str] | None = None
    split: str | None = None
    filesystem_dir: Path | None = None


@dataclass(frozen=True)
class AgentConfig:
    """The agent under test: image, provider, model, its key and options."""

    harness: str | None = None
    image: str = D.ORACLE_IMAGE
    provider: str = providers.ORACLE
    model: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None
    base_url: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    runtime: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    a2a_app_prop: float | None = None
    a2a_provider: str | None = None
    a2a_model: str | None = None
    a2a_base_url: str | None = None


@dataclass(frozen=True)
class JudgeConfig:
    """The model behind ARE's LLM soft checks."""

    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None
    base_url: str | None = None


@dataclass(frozen=True)
class RunSettings:
    """How the job runs: times, limits, repetitions, output, engine and hosts."""

    timeout: float | None = None
    health_timeout: float = D.DEFAULT_HEALTH_TIMEOUT_S
    concurrency: int = field(default_factory=default_concurrency)
    memory: str = D.DEFAULT_MEMORY
    cpus: float = D.DEFAULT_CPUS
    pids: int = D.DEFAULT_PIDS
    disk: str = D.DEFAULT_DISK
    engine_wait: float = D.DEFAULT_ENGINE_WAIT_S
    time_speed: float = D.DEFAULT_TIME_SPEED
    sim_generation_time: str = D.DEFAULT_SIM_GENERATION_TIME
    pass_at: int = D.DEFAULT_PASS_AT
    max_tokens: int | None = None
    cost_limit: float | None = None
    retry: bool = False
    noise: bool = False
    output_dir: Path | None = None
    log_level: str = D.DEFAULT_LOG_LEVEL
    shard: Shard | None = None
    sweep: bool = field(default_factory=sweep_from_env)
    preflight: bool = True
    warm_pool: bool = True
    engine: str = field(default_factory=engine_from_env)
    hosts: tuple[HostSpec, ...] = ()


SECTION_CLASSES: dict[str, type] = {
    "target": TargetConfig,
    "agent": AgentConfig,
    "judge": JudgeConfig,
    "run": RunSettings,
}


@dataclass(frozen=True)
class RunConfig:
    target: TargetConfig = field(default_factory=TargetConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    judge: JudgeConfig = field(default_factory=JudgeConfig)
    run: RunSettings = field(default_factory=RunSettings)
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
    value = getattr(SECTION_CLASSES[setting.section](), setting.key)
    return str(value) if isinstance(value, Path) else value
