"""Flat TOML (`[target] [agent] [judge] [run]`) with command-line flags on top, checked whole.

Everything is checked before a container starts, and every error names where the bad value came
from: `x.toml:12 [run] timeout`, or the flag.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from gaia2_contract import constants as contract
from gaia2_contract.generation_time import parse_generation_time
from gaia2_runner.config.endpoints import check_not_loopback
from gaia2_runner.config.harnesses import apply_harness
from gaia2_runner.config.limits import ContainerLimits, parse_size
from gaia2_runner.config.model import RunConfig
from gaia2_runner.config.schema import BY_KEY, BY_NAME, SECTIONS, SETTINGS, line_of
from gaia2_runner.config.setting import KIND_WORDS, Setting, type_ok
from gaia2_runner.config.values import parse_hosts, parse_shard, printable_value, with_concurrency
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.inputs import check_path_text, read_text
from gaia2_runner.pricing import price_of


def expand_path(value: str, base: Path) -> Path:
    """`~`, `$VAR` and `${VAR}` expand; relative paths are relative to `base`."""
    expanded = os.path.expanduser(os.path.expandvars(value))
    if "$" in expanded:
        raise ValueError(f"undefined variable in {value!r}")
    # Normalised (`cfg/../data` -> `data`) so plans, errors and run_config.json read cleanly.
    return Path(os.path.normpath(Path(base) / expanded))


def load_config(path: Path | str | None) -> RunConfig:
    """Read and check a TOML config; None gives the defaults (flags only)."""
    if path is None:
        return RunConfig()
    path = Path(path)
    check_path_text(str(path), "--config")
    if not path.exists():
        raise Gaia2Error(f"config file {path} not found: check the --config path")
    text = read_text(path, "config file", "TOML")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Gaia2Error(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise Gaia2Error(f"{path}: invalid TOML: nested too deeply") from None
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for section, table in doc.items():
        if section not in SECTIONS:
            line = line_of(text, section, None)
            raise Gaia2Error(
                f"{path}:{line}: unknown section [{section}]: use {', '.join(f'[{s}]' for s in SECTIONS)}"
            )
        if not isinstance(table, dict):
            line = line_of(text, section, None)
            raise Gaia2Error(f"{path}:{line}: {section} must be a [{section}] table, not a value")
        for key, value in table.items():
            line = line_of(text, section, key)
            where = f"{path}:{line} [{section}] {key}"
            setting = BY_KEY.get((section, key)) or _renamed(section, key, where)
            if setting is None:
                known = ", ".join(s.key for s in SETTINGS if s.section == section)
                raise Gaia2Error(f"{where}: unknown key; [{section}] takes {known}")
            if not type_ok(setting.kind, value):
                raise Gaia2Error(
                    f"{where}: expected {KIND_WORDS[setting.kind]}, got {type(value).__name__} {value!r}"
                )
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
        if setting.kind == "env" and isinstance(value, (list, tuple)):
            value = parse_env(value)
        if setting.kind == "hosts" and not value:
            continue  # no --host given: the config file decides
        if setting.kind == "path" and isinstance(value, Path):
            value = str(value)
        values[name] = value
        origins[name] = setting.flag
    merged = apply_harness(_apply(replace(config, origins=origins), values, origins, base=Path.cwd()))
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
        except (ValueError, RecursionError):  # not JSON (or absurd JSON): the text itself
            options[key] = raw
    return options


def parse_env(pairs: list[str] | tuple[str, ...]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise Gaia2Error(f"--env {pair!r} is not KEY=VALUE: write it as --env NAME=value")
        env[key.strip()] = value
    return env


def _apply(config: RunConfig, values: dict[str, Any], origins: dict[str, str], base: Path) -> RunConfig:
    sections: dict[str, dict[str, Any]] = {s: {} for s in SECTIONS}
    for name, value in values.items():
        setting = BY_NAME[name]
        sections[setting.section][setting.key] = _convert(
            setting, value, base, origins.get(name, setting.flag)
        )
    run = replace(config.run, **sections["run"])
    for setting in SETTINGS:  # a value the host environment gave names its variable
        if setting.env_var and setting.name not in origins and os.environ.get(setting.env_var, "").strip():
            origins[setting.name] = setting.env_var
    return replace(
        config,
        target=replace(config.target, **sections["target"]),
        agent=replace(config.agent, **sections["agent"]),
        judge=replace(config.judge, **sections["judge"]),
        # hosts without =N follow the concurrency, whichever of the two was set last
        run=replace(run, hosts=with_concurrency(run.hosts, run.concurrency)),
        origins=origins,
    )


def _renamed(section: str, key: str, where: str) -> Setting | None:
    """The setting an old TOML key still names for one release, with a one-line warning."""
    setting = next((s for s in SETTINGS if s.section == section and s.deprecated_key == key), None)
    if setting is not None:
        print(f"warning: {where}: {key} is deprecated: call it {setting.key}", file=sys.stderr)
    return setting


def _convert(setting: Setting, value: Any, base: Path, where: str) -> Any:
    if setting.kind == "path":
        check_path_text(str(value), where)
        try:
            return expand_path(str(value), base)
        except ValueError as exc:
            raise Gaia2Error(f"{where}: {exc}: set the variable or write the path out") from None
    if setting.kind == "splits":
        return [value] if isinstance(value, str) else list(value)
    if setting.kind == "hosts":
        return parse_hosts([str(v) for v in value], 1, where)  # slots not given: the concurrency (_apply)
    if setting.kind == "shard":
        return parse_shard(str(value), where)
    if setting.kind == "float":
        return float(value)
    if setting.name == "sim_generation_time":  # normalised once: measured, off or fixed:N
        try:
            return str(parse_generation_time(str(value)))
        except ValueError as exc:
            raise Gaia2Error(f"{where}: sim_generation_time {exc}") from None
    if setting.name == "dataset" and isinstance(value, str) and value.startswith((".", "~", "/", "$")):
        return str(expand_path(value, base))  # a local copy in the hub's layout
    return value


def check_output_dir(path: Path, where: str) -> None:
    """The output directory must be a directory we can create and write, checked without writing."""
    if path.exists() and not path.is_dir():
        raise Gaia2Error(f"{where}: {path} is a file, not a directory: choose another output directory")
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise Gaia2Error(f"{where}: cannot write under {existing}: choose a writable output directory")


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
        raise Gaia2Error(
            f"{config.where('dataset')}: {t.dataset} not found: fix the path or use a hub id (org/name)"
        )
    if t.splits is not None and not t.splits:
        raise Gaia2Error(f'{config.where("splits")}: no splits listed: name some or use "all"')
    if t.config is not None and not t.config:
        raise Gaia2Error(f'{config.where("hub_config")}: no configs listed: name some or use "all"')
    for name in ("hub_config", "hub_split"):
        if config.value(name) is not None and not t.dataset:
            raise Gaia2Error(
                f"{config.where(name)}: selects a hub dataset's config or split: use it with "
                "[target] dataset (--dataset)"
            )
    if r.output_dir is None:
        raise Gaia2Error("no output directory: set [run] output_dir or pass --output-dir")
    check_output_dir(Path(r.output_dir), config.where("output_dir"))
    check_bounds(config, ("target", "agent", "run"))
    validate_budgets(config)
    validate_limits(config)
    if config.agent.provider != "oracle" and not config.agent.model:
        raise Gaia2Error(
            f"{config.where('provider')}: provider {config.agent.provider!r} needs a model: "
            "set [agent] model or pass --model"
        )
    validate_judge(config)
    check_agent_command(config)


def check_agent_command(config: RunConfig, environ: Mapping[str, str] | None = None) -> None:
    """The container splits GAIA2_AGENT_COMMAND into words with POSIX shell quoting (shlex.split in
    the daemon's agent_process.agent_command; no pipes, `&&` or `$VAR` expansion): a value it cannot
    split is one error line here, not a crashed container. The value is never printed."""
    name = contract.ENV_AGENT_COMMAND
    given = name in config.agent.env
    value = config.agent.env[name] if given else (os.environ if environ is None else environ).get(name)
    if not value:
        return
    try:
        shlex.split(value)
    except ValueError as exc:
        where = config.where("env") if given else f"the environment's {name}"
        raise Gaia2Error(
            f"{where}: {name} cannot be split into words ({exc}): it is split with POSIX shell "
            "quoting; close the quote, or run `sh -c '…'` for pipes, && or $VARS"
        ) from None


def check_bounds(config: RunConfig, sections: tuple[str, ...]) -> None:
    """Every setting of `sections` against its declared bounds or choices (config/schema.py): the
    one place a value's range is checked."""
    for setting in SETTINGS:
        if setting.section in sections:
            problem = setting.problem(config.value(setting.name))
            if problem is not None:
                raise Gaia2Error(f"{config.where(setting.name)}: {problem}")


def validate_budgets(config: RunConfig) -> None:
    """--cost-limit needs prices for every model its sum counts, the agent's and (when set) the
    expert agents' (else the job's cost is unknown from its first run on: execution/job_limits.py
    stops it). The judge's calls are not counted (they bypass the relays), so its model needs none.
    Both it and --max-tokens need an agent that calls a model (their ranges: check_bounds)."""
    r, agent = config.run, config.agent
    for name in ("max_tokens", "cost_limit"):
        if getattr(r, name) is not None and agent.provider == "oracle":
            raise Gaia2Error(
                f"{config.where(name)}: {name} limits an agent's model calls, and the oracle makes "
                "none: drop it or choose an agent"
            )
    if r.cost_limit is None:
        return
    for name, whose in (("model", "the model"), ("a2a_model", "the expert agents' model")):
        model = getattr(agent, name)
        if name == "model" and not model:
            raise Gaia2Error(
                f"{config.where('cost_limit')}: cost_limit needs the agent model's price, and no model "
                "is set: set [agent] model (--model) or drop cost_limit"
            )
        if model and price_of(model) is None:
            raise Gaia2Error(
                f"{config.where(name)}: cost_limit needs a price for {whose} "
                f"{printable_value(model)}, and the price table has none: add it to a file named by "
                "GAIA2_PRICES (layout of gaia2_runner/pricing/prices.toml) or drop cost_limit"
            )


def validate_limits(config: RunConfig) -> None:
    """--memory, --cpus, --pids, --disk: sizes that parse and limits a scenario can run in."""
    r = config.run
    try:
        limits = ContainerLimits.of(r.memory, r.cpus, r.pids, r.disk)
    except ValueError as exc:
        raise Gaia2Error(f"{config.where(_bad_size(r.memory))}: {exc}") from None
    problem = limits.problem()
    if problem is not None:
        raise Gaia2Error(f"{config.where(problem[0])}: {problem[1]}")


def _bad_size(memory: str) -> str:
    """Which size setting failed to parse (ContainerLimits.of reads memory first)."""
    try:
        parse_size(memory)
    except ValueError:
        return "memory"
    return "disk"


def judge_overrides(overrides: Mapping[str, Any]) -> RunConfig:
    """A config holding only judge settings from the command line (`judge` re-judges finished
    runs: no target, no output directory), checked like a run's judge section."""
    values = {name: value for name, value in overrides.items() if value is not None}
    unknown = [name for name in values if BY_NAME.get(name) is None or BY_NAME[name].section != "judge"]
    if unknown:
        raise Gaia2Error(f"internal: not judge settings: {', '.join(unknown)}")
    origins = {name: BY_NAME[name].flag for name in values}
    config = _apply(RunConfig(origins=origins), values, origins, base=Path.cwd())
    validate_judge(config)
    return config


def validate_judge(config: RunConfig) -> None:
    judge = config.judge
    check_bounds(config, ("judge",))
    if judge.provider and not judge.model:
        raise Gaia2Error(
            f"{config.where('judge_provider')}: a judge provider needs a model: "
            "set [judge] model or pass --judge-model"
        )
    for name in ("base_url", "judge_base_url", "a2a_base_url"):
        url = config.value(name)
        if url and urlsplit(url).username is not None:
            # Credentials in a URL would end up in logs and records, and silently replace the key.
            raise Gaia2Error(
                f"{config.where(name)}: the URL holds credentials (user:password@): remove them "
                "and give the key with api_key_env (or judge api_key_env)"
            )
        check_not_loopback(url, config.where(name))  # the user's URL: the relay's own is set in the container
    for var in (contract.ENV_AGENT_BASE_URL, contract.ENV_JUDGE_BASE_URL):
        check_not_loopback(config.agent.env.get(var), f"{config.where('env')} {var}")
