"""Reading results.jsonl as a user's tool would (json.loads per line): the runner itself never
reads it back (result.json files are the source of truth), so this reader lives with the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Every complete record in the file; lines that do not parse (a torn tail) are skipped."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    records: list[dict[str, Any]] = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # a torn tail, or something not ours
            continue
        if isinstance(record, dict):
            records.append(record)
    return records
