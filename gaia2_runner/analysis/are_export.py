"""Exports in ARE's own shapes.

- `are`: the trace dumps `are-benchmark --trace_dump_format both` writes, `hf/<run id>.json`
  (ARE's exporter output, saved by the daemon as are_trace.json.gz) and `lite/<run id>.json`
  (scenario id, model, verdict, rationale, duration, per-agent history and LLM usage; ours come
  from trace.jsonl, as ARE's come from its agent logs). Run ids are ARE's: `<scenario>_run_<k>`.
- `leaderboard`: what a Gaia2 submission uploads: analysis/leaderboard_export.py.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

from gaia2_runner.analysis.staged_dir import staged_dir
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.atomic import write_bytes_atomic, write_json_atomic
from gaia2_runner.output.layout import ARE_TRACE_FILE
from gaia2_runner.output.read import safe_io
from gaia2_runner.output.read.record import RunRecord, load_runs
from gaia2_runner.output.read.run_files import first_run_config
from gaia2_runner.output.read.safe_io import output_root
from gaia2_runner.output.read.scenario import ScenarioData
from gaia2_runner.output.read.verdicts import CURRENT

TRACE_CAP = 64 * safe_io.MB  # one decompressed ARE trace


def run_id(row: RunRecord) -> str:
    """ARE's file name for a run (`scenarios/utils/caching.get_run_id` without a config hash)."""
    return f"{row.scenario_id}_run_{row.run}"


def trace_text(root: Path, directory: Path) -> str | None:
    handle, _ = safe_io.open_file(root, directory / ARE_TRACE_FILE)
    if handle is None:
        return None
    try:
        with handle, gzip.GzipFile(fileobj=handle) as fh:
            data = fh.read(TRACE_CAP + 1)
    except (OSError, EOFError):
        return None
    return data.decode("utf-8", errors="replace") if len(data) <= TRACE_CAP else None


def _lite(row: RunRecord, data: ScenarioData, model: str | None) -> dict[str, Any]:
    calls = data.calls
    history: list[dict[str, Any]] = []
    if calls:
        last = calls[-1]
        history = [{"role": m.role, "content": m.text} for m in last.messages if m.text]
        if last.response.text:
            history.append({"role": "assistant", "content": last.response.text})
    usage = {
        "total_llm_calls": len(calls),
        "prompt_tokens": [c.response.usage.input for c in calls],
        "completion_tokens": [c.response.usage.output for c in calls],
        "total_tokens": [(c.response.usage.input or 0) + (c.response.usage.output or 0) for c in calls],
        "reasoning_tokens": [c.response.usage.reasoning for c in calls],
        "completion_duration": [None if c.latency_ms is None else c.latency_ms / 1000 for c in calls],
    }
    judgment = (data.result or {}).get("judgment") or {}
    return {
        "scenario_id": row.scenario_id,
        "model_id": model,
        "main_agent_type": row.runtime,
        "validation_decision": None if row.success is None else ("Valid" if row.success else "Invalid"),
        "validation_rationale": judgment.get("rationale") if isinstance(judgment, dict) else None,
        "run_duration": row.wall_s,
        "per_agent_interaction_histories": {"agent_main": history},
        "per_agent_llm_usage_stats": {"agent_main": usage},
    }


def export_are(
    output_dir: Path, dest: Path, verdicts: str = CURRENT, named: bool = True
) -> tuple[int, list[str]]:
    """hf/ and lite/ under `dest`, replaced whole; (runs written, runs without an ARE trace)."""
    root = output_root(output_dir)
    model = (((first_run_config(root) or {}).get("config") or {}).get("agent") or {}).get("model")
    written, missing = 0, []
    with staged_dir(dest, named) as staging:
        for row, data in load_runs(root, verdicts):
            text = trace_text(root, root / row.dir)
            if text is None:
                missing.append(row.dir or ".")
                continue
            name = f"{run_id(row)}.json"
            if row.split:
                name = f"{row.split}__{name}"  # two splits may hold the same scenario id
            write_bytes_atomic(_in(staging, "hf") / name, text.encode("utf-8"))
            write_json_atomic(_in(staging, "lite") / name, _lite(row, data, model))
            written += 1
        if not written:
            raise nothing_to_export(output_dir, missing)  # the previous export stays as it was
    return written, missing


def nothing_to_export(output_dir: Path, missing: list[str]) -> Gaia2Error:
    return Gaia2Error(
        f"{output_dir}: none of its {len(missing)} finished runs has ARE's trace (runs from "
        "before this runner version): nothing to export in ARE's formats"
    )


def _in(dest: Path, sub: str) -> Path:
    path = dest / sub
    path.mkdir(parents=True, exist_ok=True)
    return path


def check_dest(dest: Path) -> None:
    if dest.exists() and not dest.is_dir():
        raise Gaia2Error(
            f"--out {dest}: exists and is not a directory (the {dest.name} export is a directory)"
        )
    if not dest.parent.is_dir():
        raise Gaia2Error(f"--out {dest}: its directory {dest.parent} does not exist")
