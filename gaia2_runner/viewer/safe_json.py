"""JSON from files anyone may have written (an agent writes trace.jsonl): values safe to render.

The standard decoder accepts things that later break formatting or the interpreter's limits:
integers too long to print (int->str refuses more than 4,300 digits), NaN and Infinity, and
nesting deep enough for a recursion error in json.dumps or repr. `loads` keeps what it can show:
long integers and non-finite numbers become their literal text, anything nested deeper than
MAX_DEPTH becomes a placeholder string. It raises ValueError for everything unreadable.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 48  # far deeper than any real request or event, shallow enough for every recursion
MAX_INT_DIGITS = 30  # counts, sizes, nanosecond times fit; longer ones are kept as text
TOO_DEEP = "[nested too deep to show]"
_BIG, _PRINTABLE = 10 ** MAX_INT_DIGITS, 10 ** 4000


def _int(text: str) -> int | str:
    return int(text) if len(text.lstrip("-")) <= MAX_INT_DIGITS else text


def _float(text: str) -> float | str:
    value = float(text)
    return value if math.isfinite(value) else text


def _constant(text: str) -> str:
    return text  # NaN, Infinity, -Infinity: not numbers we can count with


DECODER = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=_constant)


def loads(text: str | bytes) -> Any:
    """Parse one JSON document; ValueError (never RecursionError) when it cannot be read."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    try:
        value = DECODER.decode(text)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
    return bounded(value)


def raw_decode(text: str, pos: int) -> tuple[Any, int]:
    """One document starting at `pos` (for concatenated streams); ValueError when unreadable."""
    try:
        value, end = DECODER.raw_decode(text, pos)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
    return bounded(value), end


def bounded(value: Any, depth: int = 0) -> Any:
    """The same value with subtrees below MAX_DEPTH replaced; returns `value` itself when shallow."""
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return TOO_DEEP
        out = None
        for key, item in value.items():
            new = bounded(item, depth + 1)
            if new is not item:
                out = dict(value) if out is None else out
                out[key] = new
        return value if out is None else out
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            return TOO_DEEP
        items = None
        for index, item in enumerate(value):
            new = bounded(item, depth + 1)
            if new is not item:
                items = list(value) if items is None else items
                items[index] = new
        return value if items is None else items
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _BIG:
        return str(value) if abs(value) < _PRINTABLE else "[integer too long to show]"
    return value
