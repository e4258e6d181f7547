"""The one table of run settings: TOML keys, `run-dataset` flags and their types come from here.

Both the TOML loader and the CLI test read this table, so a setting cannot exist on one side only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gaia2_runner.config.limits import DEFAULT_CPUS, DEFAULT_DISK, DEFAULT_MEMORY, DEFAULT_PIDS

SECTIONS = ("target", "agent", "judge", "run")

ORACLE_IMAGE = "localhost/gaia2-oracle:latest"
AGENT_IMAGE = "localhost/gaia2-agent:latest"


@dataclass(frozen=True)
class Setting:
    name: str  # flag / override name: `--judge-model` is judge_model
    section: str  # TOML section
    key: str  # TOML key inside the section
    kind: str  # str, int, float, bool, path, splits, options
    help: str
    secret: bool = False
    flag_name: str | None = None  # when the flag is not the name with dashes

    @property
    def flag(self) -> str:
        return self.flag_name or "--" + self.name.replace("_", "-")

    @property
    def negative(self) -> bool:
        """A bool whose flag turns it off (`--no-sweep` sets sweep = false)."""
        return self.kind == "bool" and self.flag.startswith("--no-")


SETTINGS: tuple[Setting, ...] = (
    Setting("scenario", "target", "scenario", "path", "One scenario JSON file."),
    Setting("dataset", "target", "dataset", "str", "Hugging Face dataset id (or a local copy in the hub's layout)."),
    Setting("dataset_root", "target", "dataset_root", "path", "Local directory of scenarios, one subdirectory per split."),
    Setting("splits", "target", "splits", "splits", 'Splits to run: one, a list (comma-separated on the command line) or "all".'),
    Setting("subset", "target", "subset", "path", "Manifest of scenario ids to run (JSON list, {scenario_ids: [...]}, or one id per line)."),
    Setting("limit", "target", "limit", "int", "Run at most this many scenarios per split."),
    Setting("revision", "target", "revision", "str", "Hugging Face dataset revision (branch, tag or commit)."),
    Setting("filesystem_dir", "target", "filesystem_dir", "path",
            "The Files app's data: a copy of the hub dataset gaia2_filesystem (default: <cache>/gaia2_filesystem)."),
    Setting("harness", "agent", "harness", "str",
            "Agent to evaluate: oracle, are-default (ARE's default agent, the leaderboard's), llm (built-in "
            "loop) or a CLI harness (claude-code, codex, …; "
            "`gaia2-runner images list`); sets the image and runtime.", flag_name="--agent"),
    Setting("image", "agent", "image", "str", "Image to evaluate."),
    Setting("provider", "agent", "provider", "str", "Agent provider: oracle, openai, openai-compat, anthropic, gemini, openrouter."),
    Setting("model", "agent", "model", "str", "Agent model."),
    Setting("api_key", "agent", "api_key", "str", "Agent API key (prefer api_key_env and a .env file).", secret=True),
    Setting("api_key_env", "agent", "api_key_env", "str", "Environment variable holding the agent API key."),
    Setting("base_url", "agent", "base_url", "str", "Agent API base URL, forwarded unchanged."),
    Setting("agent_options", "agent", "options", "options", "Extra agent options (TOML table; KEY=VALUE on the command line).",
            flag_name="--agent-option"),
    Setting("runtime", "agent", "runtime", "str",
            "GAIA2_RUNTIME for the container (oracle, agent, …; default: from the provider)."),
    Setting("env", "agent", "env", "env",
            "Extra container variable KEY=VALUE (repeatable; values are never written to disk).",
            secret=True),
    Setting("judge_provider", "judge", "provider", "str", "Judge provider for ARE's LLM soft checks."),
    Setting("judge_model", "judge", "model", "str", "Judge model."),
    Setting("judge_api_key", "judge", "api_key", "str", "Judge API key (prefer api_key_env).", secret=True),
    Setting("judge_api_key_env", "judge", "api_key_env", "str", "Environment variable holding the judge API key."),
    Setting("judge_base_url", "judge", "base_url", "str", "Judge API base URL."),
    Setting("timeout", "run", "timeout", "float", "Seconds per scenario (default: its duration + 120)."),
    Setting("health_timeout", "run", "health_timeout", "float", "Seconds to wait for a container's /health."),
    Setting("concurrency", "run", "concurrency", "int", "Containers running at once."),
    Setting("memory", "run", "memory", "str",
            f"RAM per scenario container, its files included (e.g. 8g, 1536m; default {DEFAULT_MEMORY}). An "
            "agent past it is stopped by the kernel and judged."),
    Setting("cpus", "run", "cpus", "float", f"CPU cores' worth of time per scenario container (default {DEFAULT_CPUS:g})."),
    Setting("pids", "run", "pids", "int", f"Processes and threads per scenario container (default {DEFAULT_PIDS})."),
    Setting("disk", "run", "disk", "str",
            f"Writable space of the agent in each of $HOME and /tmp, held in memory (default {DEFAULT_DISK})."),
    Setting("podman_wait", "run", "podman_wait", "float",
            "Seconds to wait for an unreachable podman API before runs give up (default 300)."),
    Setting("time_speed", "run", "time_speed", "float",
            "Simulated seconds per wall second for agents (1 to 100, default 1: ARE's real time). "
            "The oracle never waits in real time, whatever this is."),
    Setting("pass_at", "run", "pass_at", "int", "Runs per scenario (the k of pass@k), in run_1/ … run_k/."),
    Setting("max_tokens", "run", "max_tokens", "int",
            "Token budget per scenario: input + output tokens of the agent's model calls, counted by the "
            "model relay; past it further calls are refused and the run is judged on what it did (default: none)."),
    Setting("cost_limit", "run", "cost_limit", "float",
            "USD for the whole job at the price table's rates: once the finished runs cost this much, no "
            "further scenario starts; what ran is kept (default: none)."),
    Setting("retry", "run", "retry", "bool", "Rerun only runs that ended without a verdict (infrastructure errors)."),
    Setting("noise", "run", "noise", "bool",
            "ARE's noise mode: random tool failures, augmented tool names/descriptions, random ENV events."),
    Setting("output_dir", "run", "output_dir", "path", "Where results go."),
    Setting("log_level", "run", "log_level", "str", "INFO, or DEBUG to log every scenario."),
    Setting("shard", "run", "shard", "str",
            "Run only slice I of N (I/N, e.g. 2/8) of the planned scenarios; merge with `aggregate`."),
    Setting("sweep", "run", "sweep", "bool",
            "Before the first container, remove containers of runners that are provably gone (default: on; "
            "also GAIA2_SWEEP=0). --no-sweep turns it off.", flag_name="--no-sweep"),
    Setting("preflight", "run", "preflight", "bool",
            "Before the first scenario, send one tiny request to the agent's and the judge's model endpoints "
            "from a container (default: on; also with --dry-run). --no-preflight skips it, for endpoints "
            "slow to wake up.", flag_name="--no-preflight"),
    Setting("hosts", "run", "hosts", "hosts",
            "Podman API URL to run on (repeatable; URL=N gives it N slots, default: concurrency each).",
            flag_name="--host"),
)

BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}
BY_KEY: dict[tuple[str, str], Setting] = {(s.section, s.key): s for s in SETTINGS}

# Providers that cannot work without a key, and where we look for one when no api_key_env is set.
DEFAULT_KEY_ENV: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
}
KNOWN_PROVIDERS = ("oracle", "openai", "openai-compat", "anthropic", "gemini", "openrouter")
JUDGE_PROVIDERS = KNOWN_PROVIDERS[1:]  # the judge is always a model


def type_ok(kind: str, value: Any) -> bool:
    """Whether a TOML value fits a setting's kind (bool is not an int here)."""
    if kind in ("str", "path"):
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "splits":
        return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
    if kind == "options":
        return isinstance(value, dict)
    if kind == "hosts":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == "env":
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    return False


KIND_WORDS = {
    "str": "a string",
    "path": "a path string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "splits": 'a split name, a list of names, or "all"',
    "options": "a table",
    "env": "a table of strings",
    "hosts": 'a list of podman API URLs (["unix:///run/podman/podman.sock", "ssh://user@host/run/podman/podman.sock=4"])',
}


_HEADER = re.compile(r"^\[\[?\s*([^\]]+?)\s*\]\]?")
_KEY = re.compile(r"""^((?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=""")


def _dotted(text: str) -> list[str]:
    return [part.strip().strip("\"'") for part in text.split(".")]


def line_of(text: str, section: str, key: str | None) -> int | None:
    """Line where `[section]` (key None) or `key` inside it is defined; tomllib gives none.

    Handles `[section]`, `[section.sub]`, `[[section]]`, `key = ...`, `key.sub = ...` and the
    top-level dotted form `section.key = ...`.
    """
    want = [section] if key is None else [section, key]
    current: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        header = _HEADER.match(stripped)
        if header:
            current = _dotted(header.group(1))
            if current[: len(want)] == want:
                return number
            continue
        assignment = _KEY.match(stripped)
        if assignment and (current + _dotted(assignment.group(1)))[: len(want)] == want:
            return number
    return None
