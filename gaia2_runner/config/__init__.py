"""Run settings: the settings table, named defaults, TOML loading with flags on top, env files and secrets."""

from gaia2_runner.config.defaults import AGENT_IMAGE, ORACLE_IMAGE
from gaia2_runner.config.load import (
    apply_overrides,
    expand_path,
    judge_overrides,
    load_config,
    validate,
)
from gaia2_runner.config.model import (
    AgentConfig,
    JudgeConfig,
    RunConfig,
    RunSettings,
    TargetConfig,
    default_concurrency,
    setting_default,
)
from gaia2_runner.config.schema import SETTINGS, Setting
from gaia2_runner.config.secrets import (
    load_env_file,
    redact_url_credentials,
    redacted,
    secret_values,
)
from gaia2_runner.config.values import HostSpec, Shard, parse_hosts, parse_shard

__all__ = [
    "AGENT_IMAGE",
    "ORACLE_IMAGE",
    "SETTINGS",
    "AgentConfig",
    "HostSpec",
    "JudgeConfig",
    "RunConfig",
    "RunSettings",
    "Setting",
    "Shard",
    "TargetConfig",
    "apply_overrides",
    "judge_overrides",
    "default_concurrency",
    "expand_path",
    "load_config",
    "load_env_file",
    "parse_hosts",
    "parse_shard",
    "redact_url_credentials",
    "redacted",
    "secret_values",
    "setting_default",
    "validate",
]
