"""JSON from files anyone may have written (an agent writes trace.jsonl): values safe to render.

The standard decoder accepts things that later break formatting or the interpreter's limits:
integers too long to print (int->str refuses more than 4,300 digits), NaN and Infinity, and
nesting deep enough for a recursion error in json.dumps or repr. `loads` keeps what it can show:
long integers and non-finite numbers become text, anything nested deeper than MAX_DEPTH becomes
a placeholder string. It raises ValueError for everything unreadable.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 48  # far deeper than any real request or event, shallow enough for every recursion
MAX_INT_DIGITS = 30  # counts, sizes, nanosecond times fit; longer ones are kept as text
TOO_DEEP = "[nested too deep to show]"
_BIG, _PRINTABLE = 10**MAX_INT_DIGITS, 10**4000


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
        try:
            value = json.loads(text)  # the fast path: no Python call per number
        except ValueError:
            value = DECODER.decode(text)  # integers too long for int(), or not JSON at all (raises again)
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


def bounded(value: Any) -> Any:
    """`value` itself when it is shallow and all its numbers are printable (nearly always, and
    checked without copying); otherwise a copy with the offending parts replaced."""
    return _rebuild(value, 0) if _needs_fix(value) else value


def _needs_fix(value: Any) -> bool:
    if type(value) is not dict and type(value) is not list:
        return _leaf(value) is not value
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        items = node.values() if type(node) is dict else node
        if depth >= MAX_DEPTH:
            return True
        for item in items:
            kind = type(item)
            if kind is dict or kind is list:
                stack.append((item, depth + 1))
            elif kind is float:
                if not -math.inf < item < math.inf:
                    return True
            elif kind is int:
                if not -_BIG < item < _BIG:
                    return True
    return False


def _leaf(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _BIG:
        return str(value) if abs(value) < _PRINTABLE else "[integer too long to show]"
    return value


def _rebuild(value: Any, depth: int) -> Any:
    if isinstance(value, dict):
        return TOO_DEEP if depth >= MAX_DEPTH else {k: _rebuild(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return TOO_DEEP if depth >= MAX_DEPTH else [_rebuild(v, depth + 1) for v in value]
    return _leaf(value)
