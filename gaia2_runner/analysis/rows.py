"""Finished runs as flat rows (one per run of one scenario), for export, `ls`, `compare` and pandas.

Everything is read through the viewer's hostile-file readers (no links followed, sizes capped,
types checked), since an agent writes part of every scenario directory.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from gaia2_runner.output.turns import failed_turn_number
from gaia2_runner.viewer import scenario as scenario_files
from gaia2_runner.viewer.scan import find_scenarios
from gaia2_runner.viewer.trace_parsers.model import as_int, as_num

@dataclass
class RunRow:
    """One run of one scenario. `status` is pass, fail or error; `success` is the verdict (None:
    no verdict, an infrastructure error)."""

    scenario_id: str
    split: str | None
    run: int
    status: str
    success: bool | None
    detail: str = ""
    reason: str = ""
    turns: int | None = None
    failed_turn: int | None = None
    actions: int | None = None
    tool_errors: int = 0
    llm_calls: int = 0
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    sim_start: float | None = None
    sim_end: float | None = None
    sim_elapsed_s: float | None = None
    wall_s: float | None = None
    started_at: str | None = None
    image: str | None = None
    runtime: str | None = None
    dir: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# Row fields in the order exports write them: the one owner of the export schema.
COLUMNS = tuple(f.name for f in fields(RunRow))


def load_rows(output_dir: str | Path) -> list[RunRow]:
    """Every finished run under `output_dir` (runs still going or never started are left out).

    For pandas: `pandas.DataFrame([r.to_dict() for r in load_rows("out/")])`."""
    root = Path(output_dir)
    rows = []
    for ref in find_scenarios(root):
        if not ref.exists:
            continue
        data = scenario_files.load(root, ref)
        if data.result is None:
            continue
        rows.append(_row(data))
    return rows


def _row(data: scenario_files.ScenarioData) -> RunRow:
    ref, result = data.ref, data.result or {}
    base = scenario_files.row_of(data)
    success = result.get("success")
    judgment = result.get("judgment") if isinstance(result.get("judgment"), dict) else {}
    turns = result.get("turns")
    row = RunRow(
        scenario_id=base.scenario_id, split=ref.split, run=ref.run or _int(result.get("run_index")) or 1,
        status=base.status, success=success if isinstance(success, bool) else None,
        detail=base.detail, reason=base.reason, actions=base.actions, llm_calls=base.llm_calls,
        tokens_in=base.tokens_in, tokens_out=base.tokens_out, wall_s=base.duration_s, tool_errors=base.tool_errors,
        cost_usd=None if base.cost is None else round(base.cost, 6),
        turns=len(turns) if isinstance(turns, list) else None,
        failed_turn=failed_turn_number(judgment),
        started_at=_str(result.get("started_at")), image=_str(result.get("image")),
        runtime=_str(result.get("runtime")), dir=ref.rel,
    )
    sims = [t for t in (as_num(e.get("sim_time")) for e in data.events) if t is not None]
    if sims:
        row.sim_start, row.sim_end = min(sims), max(sims)
        row.sim_elapsed_s = round(row.sim_end - row.sim_start, 3)
    return row


def _int(value: Any) -> int | None:
    number = as_int(value)
    return number if number is None or number >= 0 else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
