"""One scenario directory read: its result, status, events, LLM calls and files (record.py makes its row).

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
    REJUDGE_FILE,
    RESULT_FILE,
    STATUS_FILE,
    TRACE_FILE,
)
from gaia2_runner.pricing import call_cost

from . import safe_io
from .labels import RunLabels, run_labels
from .safe_io import real_dir
from .safe_json import loads
from .scan import ScenarioRef
from .trace_parsers import LlmCall, read_trace
from .values import pretty

MAX_WARNINGS = 30  # per file: a broken file must not turn the page into a list of warnings


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
    labels: RunLabels = field(default_factory=RunLabels)  # what ran: from the run's run_config.json
    rejudge: dict[str, Any] | None = (
        None  # rejudged.json: the offline re-judge's verdict (verdicts.py applies it)
    )


def load(root: Path, ref: ScenarioRef) -> ScenarioData:
    directory = ref.directory(root)
    data = ScenarioData(ref, None, None, [], [], labels=run_labels(root, ref.run))
    if not real_dir(root, directory):
        data.warnings.append("this scenario's directory is a symbolic link or went away: not read")
        return data
    data.result, data.result_problem = _document(root, directory / RESULT_FILE, data)
    data.status_doc, _ = _document(root, directory / STATUS_FILE, data)
    data.rejudge, _ = _document(root, directory / REJUDGE_FILE, data)
    data.events = read_events(root, directory / EVENTS_FILE, data.warnings)
    trace_warnings: list[str] = []
    data.calls = read_trace(directory / TRACE_FILE, trace_warnings, root)
    data.warnings += trace_warnings
    data.files = safe_io.list_files(root, directory, data.warnings)
    text = safe_io.read_text(root, directory / AGENT_RESPONSE_FILE, safe_io.TEXT_CAP)
    if text.warning:
        data.warnings.append(text.warning)
    data.agent_response = (
        text.text if text.text is not None else text_of((data.status_doc or {}).get("agent_response")) or None
    )
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
    data.raw.append((path.name, pretty(doc.value)[: safe_io.RAW_SHOWN]))
    return None, problem


def read_events(root: Path, path: Path, warnings: list[str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    problems: list[str] = []
    for number, line, too_long in safe_io.read_lines(
        root, path, warnings, max_bytes=safe_io.EVENTS_BYTES, max_lines=safe_io.EVENTS_LINES
    ):
        if too_long:
            problems.append(
                f"events.jsonl line {number} is longer than {safe_io.size_text(safe_io.LINE_CAP)}: skipped"
            )
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
    return text if len(text) <= limit else text[: limit - 1] + "…"


def status_of(result: dict[str, Any] | None, exists: bool) -> str:
    if result is None:
        return "running" if exists else "pending"
    success = result.get("success")
    return "pass" if success is True else "fail" if success is False else "error"


def call_cost_of(call: LlmCall) -> float | None:
    usage = call.response.usage
    return call_cost(call.model or call.response.model, usage.input, usage.output, usage.cache_read)


def failure_reasons(result: dict[str, Any]) -> list[str]:
    reasons = result.get("failure_reasons")
    if isinstance(reasons, list):
        return [text_of(r) for r in reasons if r not in (None, "")]
    return [text_of(reasons)] if reasons not in (None, "", {}) else []
