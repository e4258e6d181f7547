"""Run configuration: flat TOML (`[target] [agent] [judge] [run]`) with command-line flags on top.

Everything is checked before a container starts, and every error names where the bad value came
from: `x.toml:12 [run] timeout`, or the flag.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from dotenv import load_dotenv
from gaia2_runner.config_schema import (
    BY_KEY,
    BY_NAME,
    DEFAULT_KEY_ENV,
    JUDGE_PROVIDERS,
    KIND_WORDS,
    KNOWN_PROVIDERS,
    SECTIONS,
    SETTINGS,
    Setting,
    line_of,
    type_ok,
)
from gaia2_runner.errors import Gaia2Error

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ORACLE_IMAGE = "localhost/gaia2-oracle:latest"
PROXY_VARS = ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")


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


@dataclass(frozen=True)
class AgentConfig:
    image: str = ORACLE_IMAGE
    provider: str = "oracle"
    model: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None
    base_url: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


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
    concurrency: int = field(default_factory=default_concurrency)
    pass_at: int = 1
    retry: bool = False
    output_dir: Path | None = None
    log_level: str = "INFO"


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


def expand_path(value: str, base: Path) -> Path:
    """`~`, `$VAR` and `${VAR}` expand; relative paths are relative to `base`."""
    expanded = os.path.expanduser(os.path.expandvars(value))
    if "$" in expanded:
        raise ValueError(f"undefined variable in {value!r}")
    # Normalised (`cfg/../data` -> `data`) so plans, errors and run_config.json read cleanly.
    return Path(os.path.normpath(Path(base) / expanded))


def load_env_file(path: Path | None, search_from: Path) -> Path | None:
    """Load `--env-file`, else the nearest `.env` from `search_from` upwards; real env wins."""
    if path is not None:
        if not Path(path).is_file():
            raise Gaia2Error(f"--env-file {path} not found: fix the path or drop the option")
        load_dotenv(path, override=False)
        return Path(path)
    for directory in [search_from.resolve(), *search_from.resolve().parents]:
        candidate = directory / ".env"
        if candidate.is_file():
            load_dotenv(candidate, override=False)
            return candidate
    return None


def load_config(path: Path | str | None) -> RunConfig:
    """Read and check a TOML config; None gives the defaults (flags only)."""
    if path is None:
        return RunConfig()
    path = Path(path)
    if not path.is_file():
        raise Gaia2Error(f"config file {path} not found: check the --config path")
    text = path.read_text(encoding="utf-8")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Gaia2Error(f"{path}: invalid TOML: {exc}") from None
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for section, table in doc.items():
        if section not in SECTIONS:
            line = line_of(text, section, None)
            raise Gaia2Error(f"{path}:{line}: unknown section [{section}]: use {', '.join(f'[{s}]' for s in SECTIONS)}")
        if not isinstance(table, dict):
            line = line_of(text, section, None)
            raise Gaia2Error(f"{path}:{line}: {section} must be a [{section}] table, not a value")
        for key, value in table.items():
            setting = BY_KEY.get((section, key))
            line = line_of(text, section, key)
            where = f"{path}:{line} [{section}] {key}"
            if setting is None:
                known = ", ".join(s.key for s in SETTINGS if s.section == section)
                raise Gaia2Error(f"{where}: unknown key; [{section}] takes {known}")
            if not type_ok(setting.kind, value):
                raise Gaia2Error(f"{where}: expected {KIND_WORDS[setting.kind]}, got {type(value).__name__} {value!r}")
            values[setting.name] = value
            origins[setting.name] = where
    config = RunConfig(source=path.resolve())
    return _apply(config, values, origins, base=path.resolve().parent)


def apply_overrides(config: RunConfig, overrides: Mapping[str, Any]) -> RunConfig:
    """Put command-line values (None = not given) over the config, then check the result."""
    values: dict[str, Any] = {}
    origins = dict(config.origins)
    for name, value in overrides.items():
        if value is None:
            continue
        setting = BY_NAME.get(name)
        if setting is None:
            raise Gaia2Error(f"internal: unknown setting {name}")
        if setting.kind == "splits" and isinstance(value, str):
            value = [s.strip() for s in value.split(",") if s.strip()]
        if setting.kind == "options" and isinstance(value, (list, tuple)):
            value = _parse_options(value)
        if setting.kind == "path" and isinstance(value, Path):
            value = str(value)
        values[name] = value
        origins[name] = setting.flag
    merged = _apply(replace(config, origins=origins), values, origins, base=Path.cwd())
    validate(merged)
    return merged


def _parse_options(pairs: list[str] | tuple[str, ...]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise Gaia2Error(f"--agent-option {pair!r}: use KEY=VALUE (VALUE may be JSON)")
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    return options


def _apply(config: RunConfig, values: dict[str, Any], origins: dict[str, str], base: Path) -> RunConfig:
    sections: dict[str, dict[str, Any]] = {s: {} for s in SECTIONS}
    for name, value in values.items():
        setting = BY_NAME[name]
        sections[setting.section][setting.key] = _convert(setting, value, base, origins.get(name, setting.flag))
    return replace(
        config,
        target=replace(config.target, **sections["target"]),
        agent=replace(config.agent, **sections["agent"]),
        judge=replace(config.judge, **sections["judge"]),
        run=replace(config.run, **sections["run"]),
        origins=origins,
    )


def _convert(setting: Setting, value: Any, base: Path, where: str) -> Any:
    if setting.kind == "path":
        try:
            return expand_path(str(value), base)
        except ValueError as exc:
            raise Gaia2Error(f"{where}: {exc}: set the variable or write the path out") from None
    if setting.kind == "splits":
        return [value] if isinstance(value, str) else list(value)
    if setting.kind == "float":
        return float(value)
    if setting.name == "dataset" and isinstance(value, str) and value.startswith((".", "~", "/", "$")):
        return str(expand_path(value, base))  # a local copy in the hub's layout
    return value


def validate(config: RunConfig) -> None:
    """Checks that need the whole config: one target, sane numbers, files that exist."""
    t, r = config.target, config.run
    chosen = [n for n in ("scenario", "dataset", "dataset_root") if getattr(t, n)]
    if len(chosen) != 1:
        raise Gaia2Error(
            "choose exactly one target: [target] scenario, dataset or dataset_root "
            f"(--scenario/--dataset/--dataset-root); got {', '.join(chosen) or 'none'}"
        )
    for name in ("scenario", "subset", "dataset_root"):
        path = getattr(t, name)
        if path is not None and not Path(path).exists():
            raise Gaia2Error(f"{config.where(name)}: {path} not found: fix the path")
    if t.dataset and Path(t.dataset).is_absolute() and not Path(t.dataset).exists():
        # `_convert` made a local-looking value absolute; a hub id never is.
        raise Gaia2Error(f"{config.where('dataset')}: {t.dataset} not found: fix the path or use a hub id (org/name)")
    if t.splits is not None and not t.splits:
        raise Gaia2Error(f'{config.where("splits")}: no splits listed: name some or use "all"')
    if t.limit is not None and t.limit < 1:
        raise Gaia2Error(f"{config.where('limit')}: limit must be at least 1")
    if r.output_dir is None:
        raise Gaia2Error("no output directory: set [run] output_dir or pass --output-dir")
    for name, low in (("concurrency", 1), ("pass_at", 1)):
        if getattr(r, name) < low:
            raise Gaia2Error(f"{config.where(name)}: {name} must be at least {low}")
    for name in ("timeout", "health_timeout"):
        value = getattr(r, name)
        if value is not None and value <= 0:
            raise Gaia2Error(f"{config.where(name)}: {name} must be positive")
    if config.agent.provider not in KNOWN_PROVIDERS:
        raise Gaia2Error(
            f"{config.where('provider')}: unknown provider {config.agent.provider!r}: use {', '.join(KNOWN_PROVIDERS)}"
        )
    if config.agent.provider != "oracle" and not config.agent.model:
        raise Gaia2Error(f"{config.where('provider')}: provider {config.agent.provider!r} needs a model: "
                         "set [agent] model or pass --model")
    judge = config.judge
    if judge.provider is not None and judge.provider not in JUDGE_PROVIDERS:
        raise Gaia2Error(f"{config.where('judge_provider')}: unknown judge provider {judge.provider!r}: "
                         f"use {', '.join(JUDGE_PROVIDERS)}")
    if judge.provider and not judge.model:
        raise Gaia2Error(f"{config.where('judge_provider')}: a judge provider needs a model: "
                         "set [judge] model or pass --judge-model")
    if r.log_level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise Gaia2Error(f"{config.where('log_level')}: log_level must be DEBUG, INFO, WARNING or ERROR")


def _key(provider: str | None, explicit: str | None, env_name: str | None, environ: Mapping[str, str],
         who: str, where: str) -> str | None:
    if explicit:
        return explicit
    if env_name:
        value = environ.get(env_name)
        if not value:
            raise Gaia2Error(f"{who} API key: {env_name} is not set ({where}): export it or put it in .env")
        return value
    default_env = DEFAULT_KEY_ENV.get(provider or "")
    if default_env is None:
        return None  # oracle, or an openai-compat endpoint that needs no key
    value = environ.get(default_env)
    if not value:
        raise Gaia2Error(
            f"{who} provider {provider!r} needs an API key: set {default_env} (e.g. in .env) or api_key_env"
        )
    return value


def container_env(config: RunConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The scenario container's settings, secrets included (env only: never written to disk)."""
    agent, judge = config.agent, config.judge
    env: dict[str, str] = {k: environ[k] for k in PROXY_VARS if environ.get(k)}
    if agent.provider == "oracle":
        env["GAIA2_RUNTIME"] = "oracle"
    else:
        env["GAIA2_RUNTIME"] = "agent"
        if not judge.model:
            raise Gaia2Error(
                "agent runs need a judge for ARE's LLM soft checks: set [judge] provider and model "
                "(--judge-provider/--judge-model)"
            )
        env["GAIA2_AGENT_PROVIDER"] = agent.provider
        for var, value in (("MODEL", agent.model), ("BASE_URL", agent.base_url)):
            if value:
                env[f"GAIA2_AGENT_{var}"] = value
        if agent.options:
            env["GAIA2_AGENT_OPTIONS"] = json.dumps(agent.options)
        key = _key(agent.provider, agent.api_key, agent.api_key_env, environ, "agent", config.where("api_key_env"))
        if key:
            env["GAIA2_AGENT_API_KEY"] = key
    if judge.model:
        env["GAIA2_JUDGE_MODEL"] = judge.model
        env["GAIA2_JUDGE_PROVIDER"] = judge.provider or "openai"
        if judge.base_url:
            env["GAIA2_JUDGE_BASE_URL"] = judge.base_url
        key = _key(judge.provider, judge.api_key, judge.api_key_env, environ, "judge", config.where("judge_api_key_env"))
        if key:
            env["GAIA2_JUDGE_API_KEY"] = key
    return env


def redacted(config: RunConfig) -> dict[str, Any]:
    """The configuration as JSON, without secrets (api_key values never leave memory)."""
    doc: dict[str, Any] = {"source": str(config.source) if config.source else None}
    for section_name in ("target", "agent", "judge", "run"):
        section = getattr(config, section_name)
        out: dict[str, Any] = {}
        for f in fields(section):
            setting = BY_KEY.get((section_name, f.name))
            value = getattr(section, f.name)
            if setting is not None and setting.secret:
                out[f.name] = "(set)" if value else None
                continue
            out[f.name] = _scrub(str(value) if isinstance(value, Path) else value)
        doc[section_name] = out
    return doc


# Whole name parts, so `auth_token` is hidden but `max_tokens` is not.
_SECRET_WORDS = {"key", "apikey", "token", "secret", "password", "authorization", "auth", "cookie"}
_URL_CREDENTIALS = re.compile(r"(://)[^/@\s]+@")


def _scrub(value: Any) -> Any:
    """Hide what may be a secret outside api_key: `user:pass@` in URLs, secret-named options."""
    if isinstance(value, str):
        return _URL_CREDENTIALS.sub(r"\1(redacted)@", value)
    if isinstance(value, dict):
        return {k: "(set)" if v and _SECRET_WORDS & set(re.split(r"[_\-.\s]+", str(k).lower())) else _scrub(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value
