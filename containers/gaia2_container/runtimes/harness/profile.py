"""A harness profile (containers/harnesses/<name>/profile.toml), as the turn driver reads it.

The host reads the same file for the image (package, version, base); this module reads only what a
turn needs. Stdlib only: it runs inside every harness image.
"""

from __future__ import annotations

import json
import os
import string
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

PROFILE_PATH = Path(os.environ.get("GAIA2_HARNESS_PROFILE", "/opt/gaia2/harness/profile.toml"))
REPLY_KINDS = ("stdout", "json", "jsonl-last", "file")
# Where the relay sends a harness's requests when no --base-url is given: the root each provider's
# own SDK expects as its base URL (it appends /v1/messages, /responses, /v1beta/models/…).
DEFAULT_BASE_URLS = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
    "gemini": "https://generativelanguage.googleapis.com",
    "openrouter": "https://openrouter.ai/api/v1",
}


class ProfileError(Exception):
    pass


@dataclass(frozen=True)
class Profile:
    name: str
    first_turn: list[str]
    next_turn: list[str]
    reply: str
    instructions_file: str = ""
    turn_timeout_s: float = 1200.0
    env: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)

    @property
    def reply_kind(self) -> str:
        return self.reply.partition(":")[0]

    @property
    def reply_arg(self) -> str:
        return self.reply.partition(":")[2]


def _strings(doc: Mapping[str, Any], key: str, path: Path) -> list[str]:
    value = doc.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ProfileError(f"{path}: {key} must be a non-empty list of strings")
    return value


def _table(doc: Mapping[str, Any], key: str, path: Path) -> dict[str, str]:
    value = doc.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ProfileError(f"{path}: [{key}] must map names to strings")
    return dict(value)


def load(path: Path = PROFILE_PATH) -> Profile:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ProfileError(f"cannot read the harness profile {path}: {exc}") from None
    reply = doc.get("reply", "stdout")
    if not isinstance(reply, str) or reply.partition(":")[0] not in REPLY_KINDS:
        raise ProfileError(f"{path}: reply must be one of {', '.join(REPLY_KINDS)} (with :<key or path>)")
    files = _table(doc, "files", path)
    for rel in files:
        if rel.startswith("/") or ".." in Path(rel).parts:
            raise ProfileError(f"{path}: [files] {rel!r} must be a path inside $HOME")
    return Profile(
        name=str(doc.get("name") or path.parent.name),
        first_turn=_strings(doc, "first_turn", path),
        next_turn=_strings(doc, "next_turn", path) if "next_turn" in doc else _strings(doc, "first_turn", path),
        reply=reply,
        instructions_file=str(doc.get("instructions_file") or ""),
        turn_timeout_s=float(doc.get("turn_timeout_s", 1200)),
        env=_table(doc, "env", path),
        files=files,
    )


def render(template: str, values: Mapping[str, Any]) -> str:
    """str.format with only the profile's placeholders; an unknown one is a profile error."""
    for _, name, _, _ in string.Formatter().parse(template):
        if name is not None and name not in values:
            raise ProfileError(f"unknown placeholder {{{name}}} in {template[:60]!r}")
    return template.format_map(values)


def _dig(doc: Any, dotted: str) -> Any:
    for part in dotted.split(".") if dotted else []:
        if isinstance(doc, dict):
            doc = doc.get(part)
        elif isinstance(doc, list) and part.lstrip("-").isdigit():
            index = int(part)
            doc = doc[index] if -len(doc) <= index < len(doc) else None
        else:
            return None
    return doc


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def read_reply(profile: Profile, stdout: str, reply_file: Path | None) -> str:
    """The turn's final reply, as the profile says to read it ("" when there is none); `reply_file`
    is the rendered `file:` path (placeholders filled, relative to $HOME)."""
    kind, arg = profile.reply_kind, profile.reply_arg
    if kind == "stdout":
        return stdout.strip()
    if kind == "json":
        try:
            return _text(_dig(json.loads(stdout), arg)).strip()
        except ValueError:
            return ""
    if kind == "jsonl-last":
        found = ""
        for line in stdout.splitlines():
            try:
                value = _dig(json.loads(line), arg)
            except ValueError:
                continue
            if value is not None:
                found = _text(value)
        return found.strip()
    if reply_file is None:
        return ""
    try:
        return reply_file.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
