"""A harness profile (containers/harnesses/<name>/profile.toml) as the turn driver uses it: which
profile this image holds, placeholders filled into its commands, the reply read as it says.

The fields themselves are gaia2_contract/harness_profile.py (the host reads the same file for the
image). Stdlib only: it runs inside every harness image.
"""

from __future__ import annotations

import json
import os
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gaia2_contract import harness_profile
from gaia2_contract.harness_profile import Profile, ProfileError

PROFILE_PATH = Path(os.environ.get(harness_profile.ENV_PROFILE, harness_profile.IMAGE_PROFILE_PATH))


def load(path: Path = PROFILE_PATH) -> Profile:
    """The turn fields of the profile at `path` (this image's by default)."""
    return harness_profile.turn_fields(harness_profile.read(path), path)


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
