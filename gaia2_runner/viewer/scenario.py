"""One scenario directory read into an index row and the context of its trace page.

Every file here may be broken or hostile (an agent writes trace.jsonl; anything can end up in an
output directory): reads go through safe_io (no links, capped), every field is type-checked where
it is used, and what cannot be parsed is kept as raw text with a warning for the page.
"""

from __future__ import annotations

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
from gaia2_runner.output.turns import current_turn_number
from gaia2_runner.pricing import call_cost
from . import safe_io
from .safe_io import real_dir
from .safe_json import loads
from .scan import ScenarioRef
from .trace_parsers import LlmCall, read_trace
from .trace_parsers.model import as_int, as_num, pretty

STATUSES = ("pass", "fail", "error", "running", "pending")
MAX_WARNINGS = 30  # per file: a broken file must not turn the page into a list of warnings


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
    tool_errors: int = 0  # tool calls that raised (the agent saw an error)
    cost: float | None = None  # USD at the price table's rates (None: no priced call)

    @property
    def tokens(self) -> int | None:
        if self.tokens_in is None and self.tokens_out is None:
            return None
        return (self.tokens_in or 0) + (self.tokens_out or 0)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)  # flat fields only; asdict's deep copy is slow for thousands of rows

    @classmethod
    def from_json(cls, doc: Any) -> Row | None:
        """A cached row, or None when the cache entry is not exactly what to_json wrote."""
        if not isinstance(doc, dict) or set(doc) != set(cls.__dataclass_fields__):
            return None
        ok = (all(isinstance(doc[k], str) for k in ("rel", "name", "detail", "scenario_id", "reason"))
              and doc["status"] in STATUSES and isinstance(doc["has_page"], bool)
              and (doc["split"] is None or isinstance(doc["split"], str))
              and all(doc[k] is None or as_int(doc[k]) is not None for k in ("run", "actions", "tokens_in", "tokens_out"))
              and as_int(doc["llm_calls"]) is not None and as_int(doc["tool_errors"]) is not None
              and all(doc[k] is None or as_num(doc[k]) is not None for k in ("duration_s", "cost")))
        return cls(**doc) if ok else None


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
    raw: list[tuple[str, str]] = field(default_factory=list)  # (file, text) of files that could not be parsed
    result_problem: str = ""  # result.json is there but unusable: the run ended, its verdict is unreadable


def load(root: Path, ref: ScenarioRef) -> ScenarioData:
    directory = ref.directory(root)
    data = ScenarioData(ref, None, None, [], [])
    if not real_dir(root, directory):
        data.warnings.append("this scenario's directory is a symbolic link or went away: not read")
        return data
    data.result, data.result_problem = _document(root, directory / RESULT_FILE, data)
    data.status_doc, _ = _document(root, directory / STATUS_FILE, data)
    data.events = read_events(root, directory / EVENTS_FILE, data.warnings)
    trace_warnings: list[str] = []
    data.calls = read_trace(directory / TRACE_FILE, trace_warnings, root)
    data.warnings += trace_warnings
    data.files = safe_io.list_files(root, directory, data.warnings)
    text = safe_io.read_text(root, directory / AGENT_RESPONSE_FILE, safe_io.TEXT_CAP)
    if text.warning:
        data.warnings.append(text.warning)
    data.agent_response = text.text if text.text is not None else text_of((data.status_doc or {}).get("agent_response")) or None
    return data


def _document(root: Path, path: Path, data: ScenarioData) -> tuple[dict[str, Any] | None, str]:
    """(object, "") for a JSON object file; otherwise (None, the problem), the problem also a
    page warning and the text a raw block. A missing or empty file (being written) is no problem."""
    doc = safe_io.read_json(root, path)
    if doc.raw is not None:
        data.raw.append((path.name, doc.raw))
    if doc.value is None or isinstance(doc.value, dict):
        if doc.warning:
            data.warnings.append(doc.warning)
        return doc.value, doc.warning if doc.unusable else ""
    problem = f"{path.name} is JSON but not an object: shown raw"
    data.warnings.append(problem)
    data.raw.append((path.name, pretty(doc.value)[:safe_io.RAW_SHOWN]))
    return None, problem


def read_events(root: Path, path: Path, warnings: list[str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    problems: list[str] = []
    for number, line, too_long in safe_io.read_lines(root, path, warnings, max_bytes=safe_io.EVENTS_BYTES,
                                                      max_lines=safe_io.EVENTS_LINES):
        if too_long:
            problems.append(f"events.jsonl line {number} is longer than {safe_io.size_text(safe_io.LINE_CAP)}: skipped")
            continue
        if not line.strip():
            continue
        try:
            doc = loads(line)
        except ValueError:
            problems.append(f"events.jsonl line {number} is not JSON: {line[:200]}")
            continue
        if isinstance(doc, dict):
            events.append(doc)
        else:
            problems.append(f"events.jsonl line {number} is not a JSON object: {line[:200]}")
    warnings += problems[:MAX_WARNINGS]
    if len(problems) > MAX_WARNINGS:
        warnings.append(f"… and {len(problems) - MAX_WARNINGS} more unreadable lines in events.jsonl")
    return events


def text_of(value: Any) -> str:
    """Any JSON value as display text ("" for null)."""
    return value if isinstance(value, str) else "" if value is None else pretty(value)


def short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


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
    row.scenario_id = short(text_of(source.get("scenario_id")) or ref.name, 300)
    row.detail = short(text_of(source.get("status")), 80)
    row.actions = as_int(source.get("agent_actions"))
    if result:
        timings = result.get("timings")
        duration = as_num(timings.get("total_s")) if isinstance(timings, dict) else None
        row.duration_s = duration if duration is not None and duration >= 0 else None
        row.reason = short(text_of(result.get("error") or (failure_reasons(result) or [""])[0]), 500)
    elif data.result_problem:
        row.status, row.reason = "error", short(data.result_problem, 500)
    elif doc.get("started_at"):
        row.reason = f"turn {current_turn_number(doc) or 1}/{as_int(doc.get('nb_turns')) or '?'}"
    row.llm_calls = len(data.calls)
    for call in data.calls:
        usage = call.response.usage
        if usage.input is not None:
            row.tokens_in = (row.tokens_in or 0) + usage.input
        if usage.output is not None:
            row.tokens_out = (row.tokens_out or 0) + usage.output
        cost = call_cost_of(call)
        if cost is not None:
            row.cost = (row.cost or 0.0) + cost
    row.tool_errors = sum(1 for e in data.events if e.get("kind") == "tool_call" and e.get("ok") is False)
    return row


def call_cost_of(call: LlmCall) -> float | None:
    usage = call.response.usage
    return call_cost(call.model or call.response.model, usage.input, usage.output, usage.cache_read)


def failure_reasons(result: dict[str, Any]) -> list[str]:
    reasons = result.get("failure_reasons")
    if isinstance(reasons, list):
        return [text_of(r) for r in reasons if r not in (None, "")]
    return [text_of(reasons)] if reasons not in (None, "", {}) else []
