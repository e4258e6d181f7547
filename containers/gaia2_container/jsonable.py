"""Turn ARE return values (dataclasses, enums, datetimes, nested containers) into JSON values."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
from typing import Any


def to_jsonable(value: Any, _depth: int = 0) -> Any:
    """Best-effort conversion that never raises: agents must always get a readable result."""
    if _depth > 20:
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value, _depth + 1)
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_jsonable(getattr(value, f.name), _depth + 1)
            for f in dataclasses.fields(value)
            if not f.name.startswith("_")
        }
    if isinstance(value, dict):
        return {str(k): to_jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v, _depth + 1) for v in value]
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):
        try:
            return to_jsonable(model_dump(), _depth + 1)
        except Exception:  # noqa: BLE001 - fall back to text below
            pass
    return str(value)
