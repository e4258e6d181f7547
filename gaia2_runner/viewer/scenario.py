"""One scenario directory read into an index row and the context of its trace page."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaia2_runner.output.layout import (
    AGENT_RESPONSE_FILE,
    EVENTS_FILE,
    RESULT_FILE,
    STATUS_FILE,
    TRACE_FILE,
)
from .scan import ScenarioRef, read_json
from .trace_parsers import LlmCall, read_trace

LOG_SUFFIXES = (".log", ".txt", ".jsonl", ".json")


@dataclass
class Row:
    """What the index shows for one run; cached on disk, so plain JSON types only."""

    rel: str
    name: str
    split: str | None
    run: int | None
    status: str  # pass, fail, error, running, pending
    detail: str = ""  # daemon/result status: completed, timeout, crashed, judging …
    scenario_id: str = ""
    duration_s: float | None = None
    actions: int | None = None
    llm_calls: int = 0
    tokens_in: int | None = None
    tokens_out: int | None = None
    reason: str = ""
    has_page: bool = False

    @property
    def tokens(self) -> int | None:
        if self.tokens_in is None and self.tokens_out is None:
            return None
        return (self.tokens_in or 0) + (self.tokens_out or 0)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)  # flat fields only; asdict's deep copy is slow for thousands of rows


@dataclass
class ScenarioData:
    ref: ScenarioRef
    result: dict[str, Any] | None
    status_doc: dict[str, Any] | None
    events: list[dict[str, Any]]
    calls: list[LlmCall]
    files: list[tuple[str, int]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    agent_response: str | None = None


def load(root: Path, ref: ScenarioRef) -> ScenarioData:
    directory = ref.directory(root)
    result = read_json(directory / RESULT_FILE)
    status_doc = read_json(directory / STATUS_FILE)
    events, warnings = read_events(directory / EVENTS_FILE)
    data = ScenarioData(ref, result if isinstance(result, dict) else None,
                        status_doc if isinstance(status_doc, dict) else None, events,
                        read_trace(directory / TRACE_FILE), warnings=warnings)
    data.files = _files(directory)
    try:
        data.agent_response = (directory / AGENT_RESPONSE_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        data.agent_response = (data.status_doc or {}).get("agent_response")
    return data


def read_events(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return [], []
    events, warnings = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            warnings.append(f"events.jsonl line {number} is not JSON: {line[:200]}")
            continue
        if isinstance(doc, dict):
            events.append(doc)
    return events, warnings


def _files(directory: Path) -> list[tuple[str, int]]:
    try:
        return sorted((e.name, e.stat().st_size) for e in os.scandir(directory)
                      if e.is_file() and e.name.endswith(LOG_SUFFIXES))
    except OSError:
        return []


def status_of(result: dict[str, Any] | None, exists: bool) -> str:
    if result is None:
        return "running" if exists else "pending"
    success = result.get("success")
    return "pass" if success is True else "fail" if success is False else "error"


def row_of(data: ScenarioData) -> Row:
    ref, result, doc = data.ref, data.result, data.status_doc or {}
    row = Row(rel=ref.rel, name=ref.name, split=ref.split, run=ref.run, status=status_of(result, ref.exists),
              has_page=ref.exists)
    source = result or doc
    row.scenario_id = str(source.get("scenario_id") or ref.name)
    row.detail = str(source.get("status") or "")
    actions = source.get("agent_actions")
    row.actions = actions if isinstance(actions, int) else None
    if result:
        row.duration_s = (result.get("timings") or {}).get("total_s")
        reasons = result.get("failure_reasons") or []
        row.reason = str(result.get("error") or (reasons[0] if reasons else ""))
    elif doc.get("started_at"):
        row.reason = f"turn {(doc.get('turn_index') or 0) + 1}/{doc.get('nb_turns') or '?'}"
    row.llm_calls = len(data.calls)
    for call in data.calls:
        usage = call.response.usage
        if usage.input is not None:
            row.tokens_in = (row.tokens_in or 0) + usage.input
        if usage.output is not None:
            row.tokens_out = (row.tokens_out or 0) + usage.output
    return row
