"""Secrets and the environment: .env files, API keys, redaction.

Keys live only in memory and in container environments (execution/container_env.py builds those);
`redacted` is what may be written.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from dotenv import load_dotenv

from gaia2_contract import constants as contract
from gaia2_runner.config.model import RunConfig
from gaia2_runner.config.schema import BY_KEY, DEFAULT_KEY_ENV
from gaia2_runner.config.values import HostSpec, Shard
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.inputs import check_path_text, read_text

PROXY_VARS = contract.PROXY_VARS


def load_env_file(path: Path | None, search_from: Path) -> Path | None:
    """Load `--env-file` if given, else `.env` in `search_from` (the config's directory, or the
    current one); parent directories are not searched, so an unrelated .env is never picked up.
    The real environment wins over both."""
    if path is not None:
        check_path_text(str(path), "--env-file")
        if not Path(path).is_file():
            raise Gaia2Error(f"--env-file {path} not found: fix the path or drop the option")
        candidate = Path(path)
    else:
        candidate = Path(search_from) / ".env"
        if not candidate.is_file():
            return None
    text = read_text(candidate, "env file", "KEY=value lines")
    load_dotenv(stream=io.StringIO(text), override=False)
    return candidate


def resolve_key(
    provider: str | None,
    explicit: str | None,
    env_name: str | None,
    environ: Mapping[str, str],
    who: str,
    where: str,
) -> str | None:
    """An API key: given, from the variable named, else from the provider's usual variable (none for
    oracle and keyless endpoints); a variable that should hold it and does not is one error."""
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


def secret_values(config: RunConfig, env: Mapping[str, str]) -> tuple[str, ...]:
    """The values the runner must never write (the output scrubber's list): the agent's and the
    judge's API keys, every `--env` / `[agent] env` value, passwords in base and proxy URLs."""
    values = [
        env.get(contract.ENV_AGENT_API_KEY),
        env.get(contract.ENV_JUDGE_API_KEY),
        env.get(contract.ENV_A2A_API_KEY),
        config.agent.api_key,
        config.judge.api_key,
        *config.agent.env.values(),
    ]
    for var in (
        *PROXY_VARS,
        contract.ENV_AGENT_BASE_URL,
        contract.ENV_JUDGE_BASE_URL,
        contract.ENV_A2A_BASE_URL,
    ):
        try:
            values.append(urlsplit(env.get(var) or "").password)
        except ValueError:
            continue
    return tuple(dict.fromkeys(v for v in values if v))


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
                # Names of extra variables are kept (they say what was configured), values never.
                out[f.name] = (
                    {k: "(set)" for k in value} if isinstance(value, dict) else "(set)" if value else None
                )
                continue
            out[f.name] = _scrub(_plain(value))
        doc[section_name] = out
    return doc


def _plain(value: Any) -> Any:
    """A parsed value as the JSON of the setting's text: a path, `I/N`, host entries as given."""
    if isinstance(value, (Path, Shard, HostSpec)):
        return str(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


# Whole name parts, so `auth_token` is hidden but `max_tokens` is not.
_SECRET_WORDS = {"key", "apikey", "token", "secret", "password", "authorization", "auth", "cookie"}
_URL_CREDENTIALS = re.compile(r"(://)[^/@\s]+@")


def redact_url_credentials(text: str) -> str:
    """`https://user:pass@host` -> `https://(redacted)@host`, for anything printed or written."""
    return _URL_CREDENTIALS.sub(r"\1(redacted)@", text)


def _scrub(value: Any) -> Any:
    """Hide what may be a secret outside api_key: `user:pass@` in URLs, secret-named options."""
    if isinstance(value, str):
        return redact_url_credentials(value)
    if isinstance(value, dict):
        return {
            k: "(set)" if v and _SECRET_WORDS & set(re.split(r"[_\-.\s]+", str(k).lower())) else _scrub(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value
