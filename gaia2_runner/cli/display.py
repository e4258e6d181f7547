"""Result tables for the terminal: per scenario (run, demo) and the runs without a verdict."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from gaia2_runner.text import printable

MAX_ERROR_ROWS = 30


def _fmt_s(value: Any) -> str:
    return "-" if not isinstance(value, (int, float)) else f"{value:.1f}"


def _reason(record: dict[str, Any]) -> str:
    """The error, else the first failure reason; infra statuses other than `error` are named."""
    reasons = record.get("failure_reasons") or []
    reason = record.get("error") or (reasons[0] if reasons and record.get("success") is not True else "")
    status = record.get("status")
    if record.get("success") is None and status not in ("error", None):
        reason = f"{status}: {reason}" if reason else str(status)
    return str(reason)


def results_table(records: list[dict[str, Any]]) -> Table:
    """One row per scenario run: verdict, reason, actions and phase timings."""
    table = Table(title="gaia2-runner results", show_lines=False)
    for col, kw in [("scenario", {"no_wrap": True}), ("result", {"no_wrap": True}),
                    ("reason", {"overflow": "fold", "max_width": 60}), ("actions", {"justify": "right"}),
                    ("ready s", {"justify": "right"}), ("run s", {"justify": "right"}),
                    ("collect s", {"justify": "right"})]:
        table.add_column(col, **kw)
    for r in records:
        verdict = {True: "[green]PASS[/]", False: "[red]FAIL[/]"}.get(r.get("success"), "[yellow]ERROR[/]")
        timings = r.get("timings") or {}
        label = str(r.get("scenario_id"))
        if isinstance(r.get("run_index"), int) and r.get("run_index", 1) > 1:
            label += f" (run {r['run_index']})"
        table.add_row(Text(printable(label)), verdict, Text(printable(_reason(r))), str(r.get("agent_actions", 0)),
                      _fmt_s(timings.get("ready_s")), _fmt_s(timings.get("run_s")),
                      _fmt_s(timings.get("collect_s")))
    return table


def errors_table(records: list[dict[str, Any]]) -> Table | None:
    """The runs that ended without a verdict, so the user knows what --retry would rerun."""
    rows = [r for r in records if r.get("success") is None]
    if not rows:
        return None
    table = Table(title=f"runs without a verdict ({len(rows)}): rerun them with --retry")
    for name in ("split", "scenario", "run", "status", "reason"):
        table.add_column(name, overflow="fold", max_width=70 if name == "reason" else None)
    for r in rows[:MAX_ERROR_ROWS]:
        table.add_row(Text(printable(str(r.get("split") or "-"))), Text(printable(str(r.get("scenario_id")))),
                      str(r.get("run_index", 1)), Text(printable(str(r.get("status")))),
                      Text(printable(str(r.get("error") or ""))))
    if len(rows) > MAX_ERROR_ROWS:
        table.caption = f"… and {len(rows) - MAX_ERROR_ROWS} more (see results.jsonl)"
    return table
