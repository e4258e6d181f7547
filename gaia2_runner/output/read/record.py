"""One run of one scenario as one flat record: what the viewer's index, `ls`, `compare`, the
exports and pandas all read. The one row type for a run; its export columns are its first fields.

Built from a ScenarioData (scenario.py), so every value came through the hostile-file readers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any

from gaia2_contract.constants import JUDGED_STATUSES, SUB_AGENT_CALL_KIND
from gaia2_runner.output.turns import current_turn_number, failed_turn_number
from gaia2_runner.text import one_line

from .labels import MAX_LABEL, RunLabels
from .safe_io import output_root
from .scan import ScenarioRef, find_scenarios
from .scenario import ScenarioData, call_cost_of, failure_reasons, load, short, status_of, text_of
from .trace_parsers import parse_entry
from .trace_parsers.offered import unknown_tool_count
from .values import as_int, as_num
from .verdicts import CURRENT, MAX_NOTE, ORIGINAL, REJUDGED, VERDICT_SETS, VerdictSet, choose

STATUSES = ("pass", "fail", "error", "running", "pending")
_NOT_EXPORTED = {"export": False}  # field metadata: where the run lives on disk, for the viewer only


@dataclass
class RunRecord:
    """One run of one scenario. `status` is pass, fail or error (running or pending while a run is
    in progress); `success` is the verdict (None: no verdict, an infrastructure error); `run` is the
    repetition (1 without pass@k); `dir` the scenario directory's posix path from the output root."""

    scenario_id: str
    split: str | None
    run: int
    status: str
    success: bool | None = None
    detail: str = ""  # daemon/result status: completed, timeout, crashed, judging …
    reason: str = ""
    turns: int | None = None
    failed_turn: int | None = None
    actions: int | None = None
    tool_errors: int = (
        0  # tool calls that raised (the agent saw an error), calls to tools never offered included
    )
    llm_calls: int = 0
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None  # at the price table's rates (None: no priced call)
    sim_start: float | None = None
    sim_end: float | None = None
    sim_elapsed_s: float | None = None
    wall_s: float | None = None
    started_at: str | None = None
    image: str | None = None
    runtime: str | None = None
    dir: str = ""
    # What ran (output/read/labels.py), after the older columns so their order stays.
    agent: str | None = None  # oracle, llm, are-default, a harness name, custom (GAIA2_AGENT_COMMAND)
    model: str | None = None  # as configured, else the models the relay saw called
    provider: str | None = None
    judge: str | None = None  # provider/model
    image_id: str | None = None  # the image's content id the run is pinned to
    runner_version: str | None = None
    # Which verdict set `success`/`status`/`reason` come from (output/read/verdicts.py), appended.
    verdict_set: str = ORIGINAL  # original (result.json) or rejudged (rejudged.json, `gaia2-runner judge`)
    verdict_judge: str | None = None  # provider/model of the judge that gave this verdict
    verdict_at: str | None = None  # when: the run's end (original) or the re-judge's date
    original_success: bool | None = None  # the run's own verdict, set when this one is a re-judge
    verdict_note: str = ""  # why a run kept its original verdict under the re-judge
    name: str = field(default="", metadata=_NOT_EXPORTED)  # the directory's name
    layout_run: int | None = field(default=None, metadata=_NOT_EXPORTED)  # k of its run_<k>/ (None: one run)
    has_page: bool = field(default=False, metadata=_NOT_EXPORTED)  # its directory exists (a trace page)

    @property
    def tokens(self) -> int | None:
        if self.tokens_in is None and self.tokens_out is None:
            return None
        return (self.tokens_in or 0) + (self.tokens_out or 0)

    def to_dict(self) -> dict[str, Any]:
        """The export columns (COLUMNS), in order: for CSV, JSON Lines, Parquet and pandas."""
        return {name: getattr(self, name) for name in COLUMNS}

    def summary_record(self) -> dict[str, Any]:
        """The results.jsonl fields output/summary.py counts, for a run set without summary.json."""
        return {
            "scenario_id": self.scenario_id,
            "split": self.split,
            "run_index": self.run,
            "success": self.success,
            "timings": {"total_s": self.wall_s},
        }

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)  # flat fields only; asdict's deep copy is slow for thousands of rows

    @classmethod
    def from_json(cls, doc: Any) -> RunRecord | None:
        """A cached record, or None when the cache entry is not exactly what to_json wrote."""
        if not isinstance(doc, dict) or set(doc) != set(cls.__dataclass_fields__):
            return None
        ok = (
            all(
                isinstance(doc[k], str)
                for k in ("dir", "name", "detail", "scenario_id", "reason", "verdict_note")
            )
            and doc["status"] in STATUSES
            and isinstance(doc["has_page"], bool)
            and doc["success"] in (None, True, False)
            and isinstance(doc["run"], int)
            and doc["original_success"] in (None, True, False)
            and doc["verdict_set"] in VERDICT_SETS
            and all(
                doc[k] is None or isinstance(doc[k], str)
                for k in ("split", "started_at", "image", "runtime", "verdict_judge", "verdict_at", *LABELS)
            )
            and all(
                doc[k] is None or as_int(doc[k]) is not None
                for k in ("layout_run", "actions", "tokens_in", "tokens_out", "turns", "failed_turn")
            )
            and as_int(doc["llm_calls"]) is not None
            and as_int(doc["tool_errors"]) is not None
            and all(
                doc[k] is None or as_num(doc[k]) is not None
                for k in ("wall_s", "cost_usd", "sim_start", "sim_end", "sim_elapsed_s")
            )
        )
        return cls(**doc) if ok else None


# Record fields in the order exports write them: the one owner of the export schema.
COLUMNS = tuple(f.name for f in fields(RunRecord) if f.metadata.get("export", True))
LABELS = tuple(f.name for f in fields(RunLabels))  # the columns that say what ran


def placeholder(ref: ScenarioRef, status: str, reason: str = "") -> RunRecord:
    """A run with nothing readable yet (pending), or whose files could not be read (error)."""
    return RunRecord(
        scenario_id=ref.name,
        split=ref.split,
        run=ref.run or 1,
        status=status,
        reason=reason,
        dir=ref.rel,
        name=ref.name,
        layout_run=ref.run,
        has_page=ref.exists and status != "pending",
    )


def record_of(data: ScenarioData, verdicts: VerdictSet = VerdictSet()) -> RunRecord:
    """The row of one scenario directory, its verdict from the set `verdicts` (verdicts.choose)."""
    ref, result, doc = data.ref, data.result, data.status_doc or {}
    source = result or doc
    record = RunRecord(
        scenario_id=short(text_of(source.get("scenario_id")) or ref.name, 300),
        split=ref.split,
        run=ref.run or _count((result or {}).get("run_index")) or 1,
        status=status_of(result, ref.exists),
        dir=ref.rel,
        name=ref.name,
        layout_run=ref.run,
        has_page=ref.exists,
    )
    record.detail = short(text_of(source.get("status")), 80)
    record.actions = as_int(source.get("agent_actions"))
    if result:
        _from_result(record, result)
    elif data.result_problem:
        record.status, record.reason = "error", short(data.result_problem, 500)
    elif doc.get("started_at"):
        record.reason = f"turn {current_turn_number(doc) or 1}/{as_int(doc.get('nb_turns')) or '?'}"
    _from_calls(record, data)
    _label(record, data.labels, result or {})
    record.verdict_judge = record.judge
    if result:
        apply_verdicts(record, result, data.rejudge, verdicts)
    record.tool_errors = sum(
        1 for e in data.events if e.get("kind") == "tool_call" and e.get("ok") is False
    ) + unknown_tool_count(data.calls)
    sims = [t for t in (as_num(e.get("sim_time")) for e in data.events) if t is not None]
    if sims:
        record.sim_start, record.sim_end = min(sims), max(sims)
        record.sim_elapsed_s = round(record.sim_end - record.sim_start, 3)
    return record


def _from_result(record: RunRecord, result: dict[str, Any]) -> None:
    timings = result.get("timings")
    duration = as_num(timings.get("total_s")) if isinstance(timings, dict) else None
    record.wall_s = duration if duration is not None and duration >= 0 else None
    record.reason = short(text_of(result.get("error") or (failure_reasons(result) or [""])[0]), 500)
    success = result.get("success")
    record.success = success if isinstance(success, bool) else None
    turns = result.get("turns")
    record.turns = len(turns) if isinstance(turns, list) else None
    judgment = result.get("judgment")
    record.failed_turn = failed_turn_number(judgment if isinstance(judgment, dict) else {})
    record.started_at, record.image, record.runtime = (
        _str(result.get("started_at")),
        _str(result.get("image")),
        _str(result.get("runtime")),
    )


def _label(record: RunRecord, labels: RunLabels, result: dict[str, Any]) -> None:
    for name in LABELS:
        setattr(record, name, getattr(labels, name))
    if record.model is None:  # e.g. a harness's own default model: the relay's account names it
        account = result.get("provider")
        called = account.get("by_model") if isinstance(account, dict) else None
        if isinstance(called, dict) and called:
            record.model = short(",".join(sorted(str(name) for name in called)), MAX_LABEL)


def _from_calls(record: RunRecord, data: ScenarioData) -> None:
    """Calls, tokens and cost of every model call the run made: the agent's (trace.jsonl) and its
    expert sub-agents' (Agent2Agent: `llm_call` events), each priced by its own model."""
    calls = data.calls + [parse_entry(e) for e in data.events if e.get("kind") == SUB_AGENT_CALL_KIND]
    record.llm_calls = len(calls)
    cost: float | None = None
    for call in calls:
        usage = call.response.usage
        if usage.input is not None:
            record.tokens_in = (record.tokens_in or 0) + usage.input
        if usage.output is not None:
            record.tokens_out = (record.tokens_out or 0) + usage.output
        priced = call_cost_of(call)
        if priced is not None:
            cost = (cost or 0.0) + priced
    record.cost_usd = None if cost is None else round(cost, 6)


def load_runs(
    output_dir: str | Path, verdicts: str | VerdictSet = CURRENT
) -> Iterator[tuple[RunRecord, ScenarioData]]:
    """(record, files) of every finished run under `output_dir` (runs still going or never
    started are left out); the path may be relative, absolute, a link or start with ~.
    `verdicts`: current, original or rejudged (verdicts.VERDICT_CHOICES), or a chosen set."""
    root = output_root(output_dir)
    chosen = verdicts if isinstance(verdicts, VerdictSet) else choose(root, verdicts)
    for ref in find_scenarios(root):
        if not ref.exists:
            continue
        data = load(root, ref)
        if data.result is not None:
            yield record_of(data, chosen), data


def load_rows(output_dir: str | Path, verdicts: str | VerdictSet = CURRENT) -> list[RunRecord]:
    """Every finished run under `output_dir` as a record, its verdict from the set `verdicts`.

    For pandas: `pandas.DataFrame([r.to_dict() for r in load_rows("out/")])`."""
    return [record for record, _ in load_runs(output_dir, verdicts)]


def _count(value: Any) -> int | None:
    number = as_int(value)
    return number if number is None or number >= 0 else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# Applying a verdict set (output/read/verdicts.py) to a record: here, beside RunRecord, so that
# verdicts.py need not know the record type.


def apply_verdicts(
    record: RunRecord, result: dict[str, Any], rejudge: dict[str, Any] | None, verdicts: VerdictSet
) -> None:
    """Set the record's verdict from `verdicts`: the original (result.json's, already in `record`)
    or, where it applies, the re-judge's (rejudged.json), the original kept in `original_success`."""
    record.verdict_set = ORIGINAL
    record.verdict_at = _short_str(result.get("finished_at"))
    if verdicts.name != REJUDGED:
        return
    note = _not_applied(result, rejudge)
    if note:
        record.verdict_note = note
        return
    assert rejudge is not None
    record.original_success = record.success
    record.success = rejudge["success"]
    record.status = "pass" if record.success else "fail"
    record.reason = "" if record.success else one_line(str(rejudge.get("reason") or ""))[:500]
    record.failed_turn = None  # the re-judge's per-turn detail is in rejudged.json, not a turn number
    record.verdict_set = REJUDGED
    record.verdict_judge = verdicts.judge
    record.verdict_at = _short_str(rejudge.get("judged_at")) or verdicts.judged_at


def _not_applied(result: dict[str, Any], rejudge: dict[str, Any] | None) -> str:
    """Why this run keeps its original verdict under the re-judge ("" when the re-judge applies)."""
    if result.get("status") not in JUDGED_STATUSES:
        return f"original kept: the run ended {str(result.get('status'))[:40]}, no verdict of the agent's to re-judge"
    if rejudge is None:
        return "original kept: not re-judged (no ARE trace, or not in the re-judge)"
    if rejudge.get("error") or not isinstance(rejudge.get("success"), bool):
        return f"original kept: the re-judge failed: {one_line(str(rejudge.get('error') or 'no verdict'))}"[
            :MAX_NOTE
        ]
    ended, judged = _when(result.get("finished_at")), _when(rejudge.get("judged_at"))
    if ended is not None and judged is not None and ended > judged:
        return "original kept: the run was redone (--retry) after the re-judge"
    return ""


def _when(value: Any) -> datetime | None:
    """An ISO 8601 time with its zone (now_iso's), else None: the files are not trusted."""
    try:
        when = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return when if when is not None and when.tzinfo is not None else None


def _short_str(value: Any) -> str | None:
    return value[:40] if isinstance(value, str) and value else None


def verdict_sides(
    record: RunRecord, result: dict[str, Any], rejudge: dict[str, Any] | None, verdicts: VerdictSet
) -> list[dict[str, Any]]:
    """A trace page's verdicts: the one shown (the record's set) first, the other beside it, each
    with its judge and date; [] for a run no re-judge ever looked at (its page stays as it was)."""
    if rejudge is None and not record.verdict_note:
        return []
    shown = {
        "set": record.verdict_set,
        "success": record.success,
        "judge": record.verdict_judge,
        "at": record.verdict_at,
        "reason": record.reason if record.success is False else "",
        "note": record.verdict_note,
    }
    if record.verdict_set == REJUDGED:
        shown["rationale"] = one_line(str((rejudge or {}).get("rationale") or ""))[:2000]
        other = {
            "set": ORIGINAL,
            "success": record.original_success,
            "judge": record.judge,
            "at": _short_str(result.get("finished_at")),
            "reason": "",
            "note": "",
        }
    elif rejudge is not None:
        success = rejudge.get("success") if isinstance(rejudge.get("success"), bool) else None
        other = {
            "set": REJUDGED,
            "success": success,
            "judge": verdicts.judge,
            "at": _short_str(rejudge.get("judged_at")),
            "reason": one_line(
                str(rejudge.get("error") or (rejudge.get("reason") if success is False else "") or "")
            )[:500],
            "note": "",
        }
    else:
        return [shown]
    return [shown, other]
