"""The one table of run settings: every setting declared once (config/setting.py says what a
declaration holds).

The TOML loader, the config dataclasses (config/model.py), the checks (config/load.py), the
command-line options (cli/options.py) and the settings reference all read this table, so a
setting cannot exist on one side only, and its default and bounds are stated once (their values
are named in config/defaults.py).
"""

from __future__ import annotations

import re

from gaia2_contract import providers
from gaia2_runner.config import defaults as D
from gaia2_runner.config.run_settings import RUN_SETTINGS
from gaia2_runner.config.setting import Setting

SECTIONS = ("target", "agent", "judge", "run")

SETTINGS: tuple[Setting, ...] = (
    Setting("scenario", "target", "scenario", "path", "One scenario JSON file."),
    Setting(
        "dataset",
        "target",
        "dataset",
        "str",
        "Hugging Face dataset id (or a local copy in the hub's layout).",
    ),
    Setting(
        "dataset_root",
        "target",
        "dataset_root",
        "path",
        "Local directory of scenarios, one subdirectory per split.",
    ),
    Setting(
        "splits",
        "target",
        "splits",
        "splits",
        'Splits to run: one, a list (comma-separated on the command line) or "all".',
    ),
    Setting(
        "subset",
        "target",
        "subset",
        "path",
        "Manifest of scenario ids to run (JSON list, {scenario_ids: [...]}, or one id per line).",
    ),
    Setting("limit", "target", "limit", "int", "Run at most this many scenarios per split.", minimum=1),
    Setting(
        "revision", "target", "revision", "str", "Hugging Face dataset revision (branch, tag or commit)."
    ),
    Setting(
        "hub_config",
        "target",
        "config",
        "splits",
        "Configs of a dataset in the original hub layout (meta-agents-research-environments/gaia2): mini, "
        'demo, execution, search, adaptability, time, ambiguity; one, a list or "all" (default: the five '
        "capabilities). Each config is a split of the results.",
        flag_name="--config",
    ),
    Setting(
        "hub_split",
        "target",
        "split",
        "str",
        f"Hub split of a dataset in the original hub layout: validation or test (default {D.DEFAULT_HUB_SPLIT}).",
        flag_name="--split",
    ),
    Setting(
        "filesystem_dir",
        "target",
        "filesystem_dir",
        "path",
        "The Files app's data: a copy of the hub dataset gaia2_filesystem (default: <cache>/gaia2_filesystem).",
    ),
    Setting(
        "harness",
        "agent",
        "harness",
        "str",
        "Agent to evaluate: oracle, are-default (ARE's default agent, the leaderboard's), llm (built-in "
        "loop) or a CLI harness (claude-code, codex, …; "
        "`gaia2-runner images list`); sets the image and runtime.",
        flag_name="--agent",
    ),
    Setting("image", "agent", "image", "str", "Image to evaluate.", default=D.ORACLE_IMAGE),
    Setting(
        "provider",
        "agent",
        "provider",
        "str",
        "Agent provider: " + ", ".join(providers.KNOWN) + ".",
        default=providers.ORACLE,
        choices=providers.KNOWN,
        noun="provider",
    ),
    Setting("model", "agent", "model", "str", "Agent model."),
    Setting(
        "api_key",
        "agent",
        "api_key",
        "str",
        "Agent API key (prefer api_key_env and a .env file).",
        secret=True,
    ),
    Setting("api_key_env", "agent", "api_key_env", "str", "Environment variable holding the agent API key."),
    Setting("base_url", "agent", "base_url", "str", "Agent API base URL, forwarded unchanged."),
    Setting(
        "agent_options",
        "agent",
        "options",
        "options",
        "Extra agent options (TOML table; KEY=VALUE on the command line).",
        flag_name="--agent-option",
    ),
    Setting(
        "runtime",
        "agent",
        "runtime",
        "str",
        "GAIA2_RUNTIME for the container (oracle, agent, …; default: from the provider).",
    ),
    Setting(
        "env",
        "agent",
        "env",
        "env",
        "Extra container variable KEY=VALUE (repeatable; values are never written to disk).",
        secret=True,
    ),
    Setting(
        "a2a_app_prop",
        "agent",
        "a2a_app_prop",
        "float",
        "Agent2Agent, as ARE's --a2a_app_prop: this fraction (0 to 1) of each scenario's apps become "
        "expert agents (ARE's seeded choice); the agent gets one tool per such app, expert_agent(task), "
        "and a sub-agent (ARE's app agent, in the container) holding the app's tools does the task "
        "(default: off).",
        minimum=0,
        maximum=1,
        unit="(a fraction of the apps)",
    ),
    Setting(
        "a2a_provider",
        "agent",
        "a2a_provider",
        "str",
        "Provider of the expert sub-agents' model (default: the agent's): "
        + ", ".join(providers.CHAT_COMPLETIONS)
        + "; its key from the provider's usual variable.",
        choices=providers.CHAT_COMPLETIONS,
        noun="expert agents' provider",
    ),
    Setting(
        "a2a_model", "agent", "a2a_model", "str", "Model of the expert sub-agents (default: the agent's)."
    ),
    Setting(
        "a2a_base_url",
        "agent",
        "a2a_base_url",
        "str",
        "API base URL of the expert sub-agents' model (default: the agent's when --a2a-provider is not "
        "given, else the provider's). Without --a2a-provider the agent's key is sent to it.",
    ),
    Setting(
        "judge_provider",
        "judge",
        "provider",
        "str",
        "Judge provider for ARE's LLM soft checks.",
        choices=providers.MODELS,
        noun="judge provider",
    ),  # the judge is always a model
    Setting("judge_model", "judge", "model", "str", "Judge model."),
    Setting("judge_api_key", "judge", "api_key", "str", "Judge API key (prefer api_key_env).", secret=True),
    Setting(
        "judge_api_key_env", "judge", "api_key_env", "str", "Environment variable holding the judge API key."
    ),
    Setting("judge_base_url", "judge", "base_url", "str", "Judge API base URL."),
    *RUN_SETTINGS,
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


_HEADER = re.compile(r"^\[\[?\s*([^\]]+?)\s*\]\]?")
_KEY = re.compile(
    r"""^((?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*="""
)


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
