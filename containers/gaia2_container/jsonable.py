"""The one owner of text the agent may send and the daemon must write: JSON in, JSON out.

Agent JSON can be valid and still hold text UTF-8 cannot encode: a lone surrogate (`"\\ud800"`)
parses into a Python string that every UTF-8 writer (events.jsonl, ARE's pydantic exporter, the
judge's HTTP request, agent_response.txt) refuses. The rule (TRACE_FORMAT.md, "Text the agent
sends"): a lone surrogate becomes U+FFFD (REPLACEMENT) the moment the daemon reads the request, so
ARE's apps, events.jsonl, the ARE trace, the judge and the agent's own result all hold the same
text. `parse_agent_json` applies it with the other limits of what a request may hold (strict JSON,
no NaN, bounded nesting); `to_jsonable` applies it again to everything written, so text from any
other source cannot break a writer either.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import json
import math
import re
from typing import Any

REPLACEMENT = "\ufffd"  # what a lone surrogate becomes in every record
# Deepest nesting kept as JSON (a body, and a value written); deeper request bodies are refused, so
# what is recorded is what was executed. ARE's tools take flat arguments: 20 levels is plenty.
MAX_DEPTH = 20
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class BadAgentJson(ValueError):
    """A request body that is not strict JSON the daemon can act on; the message says why."""


def encodable(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD: writable as UTF-8 anywhere."""
    if text.isascii():
        return text
    return _LONE_SURROGATE.sub(REPLACEMENT, text)


def _refuse_constant(name: str) -> Any:
    raise BadAgentJson(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")


def parse_agent_json(raw: bytes) -> Any:
    """A request body as JSON, with lone surrogates replaced (see module docstring).

    Raises BadAgentJson for anything else: bytes that are not UTF-8, syntax errors, NaN/Infinity
    (a judge provider would refuse the request that carries them), integers too long to print,
    nesting deeper than MAX_DEPTH."""
    try:
        value = json.loads(raw or b"{}", parse_constant=_refuse_constant)
    except BadAgentJson:
        raise
    except json.JSONDecodeError as exc:
        raise BadAgentJson(f"body is not JSON: {exc.msg} at character {exc.pos}") from None
    except UnicodeDecodeError:
        raise BadAgentJson("body is not UTF-8") from None
    except RecursionError:
        raise BadAgentJson(f"body is nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer past Python's 4300-digit limit
        raise BadAgentJson(f"body is not usable JSON: {exc}") from None
    return _clean(value, 1)


def _clean(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, float) and not math.isfinite(value):  # 1e400 parses as inf
        raise BadAgentJson(f"{value!r}: a number too large for a float is not usable JSON")
    if isinstance(value, (dict, list)):
        if depth > MAX_DEPTH:
            raise BadAgentJson(f"body is nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, list):
            return [_clean(v, depth + 1) for v in value]
        return {encodable(k): _clean(v, depth + 1) for k, v in value.items()}
    return value


def json_text(value: Any, **dumps_options: Any) -> str:
    """`json.dumps` of `to_jsonable(value)`: strict JSON that always encodes as UTF-8."""
    return json.dumps(to_jsonable(value), ensure_ascii=False, allow_nan=False, **dumps_options)


def to_jsonable(value: Any, _depth: int = 0) -> Any:
    """Best-effort conversion that never raises: agents must always get a readable result, and
    every record must be writable (text encodable, floats finite, nesting at most MAX_DEPTH)."""
    if _depth > MAX_DEPTH:
        return as_text(value)
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value, _depth + 1)
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_jsonable(getattr(value, f.name, None), _depth + 1)
            for f in dataclasses.fields(value)
            if not f.name.startswith("_")
        }
    if isinstance(value, dict):
        return {as_text(k): to_jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v, _depth + 1) for v in value]
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):
        try:
            return to_jsonable(model_dump(), _depth + 1)
        except Exception:  # noqa: BLE001 - fall back to text below
            pass
    return as_text(value)


def as_text(value: Any) -> str:
    """str(value), encodable; an object whose __str__ fails (or recurses too deep) is named instead."""
    try:
        return encodable(value if isinstance(value, str) else str(value))
    except Exception as exc:  # noqa: BLE001 - RecursionError, a broken __str__
        return f"<unprintable {type(value).__name__}: {type(exc).__name__}>"
