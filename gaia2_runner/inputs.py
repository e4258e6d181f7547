"""Reading what users hand us (configs, .env files, manifests, scenario files): checked, bounded.

Every problem becomes one Gaia2Error naming the file and the fix: a path with a NUL byte, a
directory where a file was expected, a file too large, bytes that are not UTF-8 text, JSON that
nests too deeply or holds numbers Python will not parse.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gaia2_runner.errors import Gaia2Error

MAX_TEXT_BYTES = 16 << 20  # configs, .env files, manifests
MAX_SCENARIO_BYTES = 256 << 20  # real Gaia2 scenarios are ~2.5 MB


def check_path_text(value: str, where: str) -> None:
    """Refuse what no filesystem call accepts, before one raises."""
    if "\0" in value:
        raise Gaia2Error(f"{where}: the path contains a NUL byte: write the path out plainly")
    if not value.strip():
        raise Gaia2Error(f"{where}: the path is empty: give a file or directory")


def read_bytes(path: Path, what: str, limit: int = MAX_TEXT_BYTES) -> bytes:
    """The file's bytes, or one error line: missing, not a regular file, unreadable, too large."""
    check_path_text(str(path), what)
    try:
        if not path.exists():
            raise Gaia2Error(f"{what} {path} not found: check the path")
        if not path.is_file():
            raise Gaia2Error(f"{what} {path} is not a regular file: pass a file, not a directory")
        size = path.stat().st_size
        if size > limit:
            raise Gaia2Error(
                f"{what} {path} is {size} bytes, more than the {limit} allowed: is it the right file?"
            )
        return path.read_bytes()
    except OSError as exc:
        raise Gaia2Error(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def decode_text(raw: bytes, path: Path, what: str, expected: str) -> str:
    """UTF-8 text (a BOM is allowed), or one error line saying what the file should be."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise Gaia2Error(f"{what} {path} is UTF-16: save it as UTF-8 {expected}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Gaia2Error(
            f"{what} {path} is not UTF-8 (bad byte at offset {exc.start}): save it as UTF-8 {expected}"
        ) from None
    if "\0" in text:
        raise Gaia2Error(f"{what} {path} holds NUL bytes: it is binary, not {expected}")
    return text


def read_text(path: Path, what: str, expected: str, limit: int = MAX_TEXT_BYTES) -> str:
    return decode_text(read_bytes(Path(path), what, limit), Path(path), what, expected)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text: str, path: Path, what: str) -> Any:
    """Strict JSON (no NaN/Infinity), with errors for deep nesting and oversized integers."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise Gaia2Error(
            f"{what} {path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise Gaia2Error(f"{what} {path} nests JSON too deeply: is it the right file?") from None
    except ValueError as exc:  # NaN/Infinity, or an integer too long to convert
        raise Gaia2Error(f"{what} {path} is not valid JSON: {' '.join(str(exc).split())[:120]}") from None
