"""The harness profile (containers/harnesses/<name>/profile.toml): its fields, read by both sides.

The host takes what it needs to build and choose the image (package, pinned version, base, wire,
providers: `image_fields`); the container's turn driver how to run a turn (commands, where the
reply is, files and environment: `turn_fields`). docs/reference/agents.md documents the fields.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaia2_contract import providers

PROFILE_FILE = "profile.toml"  # containers/harnesses/<name>/profile.toml
# Where a harness image holds its profile (the harness Containerfiles COPY it there); the container
# reads $GAIA2_HARNESS_PROFILE instead when set.
IMAGE_PROFILE_PATH = "/opt/gaia2/harness/profile.toml"
ENV_PROFILE = "GAIA2_HARNESS_PROFILE"

PACKAGE_SOURCES = ("npm", "pypi")  # package = "npm:<pkg>" or "pypi:<pkg>"
BASES = ("node", "python")
WIRES = ("anthropic", "openai-responses", "gemini", "openai-chat")
REPLY_KINDS = ("stdout", "json", "jsonl-last", "file")
DEFAULT_REPLY = "stdout"
DEFAULT_TURN_TIMEOUT_S = 1200.0
DEFAULT_EXEC_TOOL = "shell"


class ProfileError(Exception):
    """The profile cannot be read or a field is invalid; the message starts with the file."""


def read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ProfileError(f"{path}: cannot read the harness profile: {exc}") from None


@dataclass(frozen=True)
class ImageFields:
    """What the host builds and chooses the image by."""

    name: str
    title: str
    package: str
    version: str
    base: str
    wire: str
    providers: tuple[str, ...]  # the first is the default


def image_fields(doc: Mapping[str, Any], path: Path) -> ImageFields:
    """The image facts of the profile at `path` (its directory names the harness)."""
    name = Path(path).parent.name
    names = doc.get("providers")
    checks = {
        "name": doc.get("name") == name,
        "package": isinstance(doc.get("package"), str)
        and doc["package"].partition(":")[0] in PACKAGE_SOURCES,
        "version": isinstance(doc.get("version"), str) and bool(doc["version"]),
        "base": doc.get("base") in BASES,
        "wire": doc.get("wire") in WIRES,
        "providers": isinstance(names, list) and bool(names) and all(p in providers.MODELS for p in names),
    }
    bad = [key for key, ok in checks.items() if not ok]
    if bad:
        raise ProfileError(
            f"{path}: invalid {', '.join(bad)} (docs/reference/agents.md lists the profile fields)"
        )
    return ImageFields(
        name,
        str(doc.get("title") or name),
        doc["package"],
        doc["version"],
        doc["base"],
        doc["wire"],
        tuple(doc["providers"]),
    )


@dataclass(frozen=True)
class Profile:
    """What the turn driver runs a turn by."""

    name: str
    first_turn: list[str]
    next_turn: list[str]
    reply: str
    instructions_file: str = ""
    turn_timeout_s: float = DEFAULT_TURN_TIMEOUT_S
    # True: a reply counts only when the harness exits 0 (Claude Code exits 1 after an API error
    # and prints the error text as its result, which must not reach the user as an answer).
    reply_on_exit_0: bool = False
    exec_tool: str = DEFAULT_EXEC_TOOL  # what the harness calls its shell tool; the instructions name it
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


def turn_fields(doc: Mapping[str, Any], path: Path) -> Profile:
    """How to run a turn, from the profile at `path`."""
    reply = doc.get("reply", DEFAULT_REPLY)
    if not isinstance(reply, str) or reply.partition(":")[0] not in REPLY_KINDS:
        raise ProfileError(f"{path}: reply must be one of {', '.join(REPLY_KINDS)} (with :<key or path>)")
    files = _table(doc, "files", path)
    for rel in files:
        if rel.startswith("/") or ".." in Path(rel).parts:
            raise ProfileError(f"{path}: [files] {rel!r} must be a path inside $HOME")
    return Profile(
        name=str(doc.get("name") or Path(path).parent.name),
        first_turn=_strings(doc, "first_turn", path),
        next_turn=_strings(doc, "next_turn", path)
        if "next_turn" in doc
        else _strings(doc, "first_turn", path),
        reply=reply,
        instructions_file=str(doc.get("instructions_file") or ""),
        turn_timeout_s=float(doc.get("turn_timeout_s", DEFAULT_TURN_TIMEOUT_S)),
        reply_on_exit_0=bool(doc.get("reply_on_exit_0", False)),
        exec_tool=str(doc.get("exec_tool") or DEFAULT_EXEC_TOOL),
        env=_table(doc, "env", path),
        files=files,
    )
