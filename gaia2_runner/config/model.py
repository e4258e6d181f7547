"""The run configuration as typed, frozen dataclasses: `[target] [agent] [judge] [run]`."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaia2_runner.config.limits import DEFAULT_CPUS, DEFAULT_DISK, DEFAULT_MEMORY, DEFAULT_PIDS
from gaia2_runner.config.schema import BY_NAME, ORACLE_IMAGE


def default_concurrency() -> int:
    """One container per core, at least 1, at most 8 (each container needs ~1 core to load)."""
    return max(1, min(8, os.cpu_count() or 1))


@dataclass(frozen=True)
class TargetConfig:
    scenario: Path | None = None
    dataset: str | None = None
    dataset_root: Path | None = None
    splits: list[str] | None = None  # None or ["all"]: every split
    subset: Path | None = None
    limit: int | None = None
    revision: str | None = None
    filesystem_dir: Path | None = None  # None: <cache>/gaia2_filesystem (targets/filesystem_data.py)


@dataclass(frozen=True)
class AgentConfig:
    harness: str | None = None  # --agent NAME (config/harnesses.py): sets image, provider and runtime
    image: str = ORACLE_IMAGE
    provider: str = "oracle"
    model: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None
    base_url: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    runtime: str | None = None
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class JudgeConfig:
    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None
    base_url: str | None = None


@dataclass(frozen=True)
class RunSettings:
    timeout: float | None = None
    health_timeout: float = 60.0
    podman_wait: float = 300.0
    time_speed: float = 1.0  # simulated seconds per wall second (agents; the oracle's clock is manual)
    concurrency: int = field(default_factory=default_concurrency)
    pass_at: int = 1
    max_tokens: int | None = None  # token budget per scenario (GAIA2_TOKEN_BUDGET, counted by the relay)
    cost_limit: float | None = None  # USD per job: no run starts once the finished ones cost this much
    retry: bool = False
    noise: bool = False  # ARE's noise mode (GAIA2_NOISE in the container)
    output_dir: Path | None = None
    log_level: str = "INFO"
    shard: str | None = None  # "I/N": slice I of N of the planned scenarios (config/load.py parse_shard)
    hosts: list[str] = field(default_factory=list)  # podman API URLs, "URL=N" for N slots (parse_hosts)
    sweep: bool | None = None  # remove dead runners' containers first; None: $GAIA2_SWEEP, else on
    preflight: bool = True  # check the model endpoints from a container first (engine/preflight.py)
    # What each scenario container may use (config/limits.py: the defaults and their reasons).
    memory: str = DEFAULT_MEMORY
    cpus: float = DEFAULT_CPUS
    pids: int = DEFAULT_PIDS
    disk: str = DEFAULT_DISK


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


def setting_default(name: str) -> Any:
    """A setting's default as the dataclasses define it (for `--help`; one source of truth)."""
    setting = BY_NAME[name]
    section = {"target": TargetConfig, "agent": AgentConfig, "judge": JudgeConfig, "run": RunSettings}[setting.section]
    value = getattr(section(), setting.key)
    return str(value) if isinstance(value, Path) else value
