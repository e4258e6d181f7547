"""Result tables for the terminal: per scenario (run, demo) and the runs without a verdict.

Every table must stay legible at 80 columns, the width rich assumes whenever the output is not a
terminal (CI logs, pipes): numbers and headers never wrap, a reason is one line cut with an
ellipsis (the full text is in result.json and results.jsonl), and only the name and reason columns
give up width when the terminal is narrow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table
from rich.text import Text

from gaia2_runner.execution.image_pin import short_id
from gaia2_runner.output.runner_log import duration_s, result_reason, verdict_word
from gaia2_runner.text import printable

if TYPE_CHECKING:
    from gaia2_runner.analysis import RunInfo

MAX_ERROR_ROWS = 30
MAX_NAME_WIDTH = 40  # a longer scenario id folds, so the reason keeps some room at 80 columns
WIDE = 110  # from this console width on, the results table also shows each phase's seconds
VERDICT_STYLES = {"PASS": "green", "FAIL": "red", "ERROR": "yellow"}
# No vertical rules (three characters between columns instead of a box's four per column); a rule
# under the header and between sections (the report's overall row).
RULES = box.Box("    \n    \n ── \n    \n ── \n ── \n    \n    \n")


def pct(value: float | None) -> str:
    """A rate as a percentage with one decimal, `-` when there is none."""
    return "-" if value is None else f"{100 * value:.1f}%"


def _fmt_s(value: Any) -> str:
    return "-" if not isinstance(value, (int, float)) or isinstance(value, bool) else f"{value:.1f}"


def one_line_cell(text: str, style: str = "") -> Text:
    """A cell that never wraps: cut with an ellipsis where its column ends."""
    return Text(printable(text), style=style, no_wrap=True, overflow="ellipsis")


def compact_table(title: str | None = None) -> Table:
    """A table without vertical rules (RULES), so more of the width goes to the content."""
    return Table(title=title, box=RULES, show_edge=False, pad_edge=False)


def add_fixed(table: Table, name: str, justify: str = "right") -> None:
    """A column whose header and values are never wrapped nor squeezed (numbers, verdicts)."""
    table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]


def add_flexible(table: Table, name: str) -> None:
    """The column that gives up width when the table is too wide (the reason): rich shrinks the
    columns that may wrap, and only those, before squeezing every column."""
    table.add_column(Text(name, no_wrap=True, overflow="ellipsis"))


def add_name(table: Table, name: str, max_width: int = MAX_NAME_WIDTH) -> None:
    """A name column: keeps its width while a flexible column can give some; a name longer than
    `max_width` folds onto a second line (see `name_cell`) rather than losing its end."""
    table.add_column(name, no_wrap=True, max_width=max_width)


def name_cell(text: str) -> Text:
    return Text(printable(text), no_wrap=False, overflow="fold")


def verdict_cell(record: dict[str, Any]) -> Text:
    word = verdict_word(record)
    return Text(word, style=VERDICT_STYLES[word])


def run_label(record: dict[str, Any], with_split: bool = False) -> str:
    label = str(record.get("scenario_id"))
    if with_split and record.get("split"):
        label = f"{record['split']}/{label}"
    if isinstance(record.get("run_index"), int) and record.get("run_index", 1) > 1:
        label += f" (run {record['run_index']})"
    return label


def results_table(records: list[dict[str, Any]], width: int | None = None) -> Table:
    """One row per scenario run: verdict, actions, seconds, and the reason when some run has one;
    each phase's seconds too on a console at least WIDE columns wide."""
    phases = width is not None and width >= WIDE
    table = compact_table("gaia2-runner results")
    add_name(table, "scenario")
    add_fixed(table, "result", "left")
    add_fixed(table, "actions")
    add_fixed(table, "time s")
    if phases:
        for name in ("ready s", "run s", "collect s"):
            add_fixed(table, name)
    reasons = [result_reason(r) for r in records]
    if any(reasons):
        add_flexible(table, "reason")
    for r, reason in zip(records, reasons):
        timings = r.get("timings") or {}
        cells: list[Text | str] = [
            name_cell(run_label(r, with_split=True)),
            verdict_cell(r),
            str(r.get("agent_actions", 0)),
            _fmt_s(duration_s(r)),
        ]
        if phases:
            cells += [_fmt_s(timings.get(key)) for key in ("ready_s", "run_s", "collect_s")]
        table.add_row(*cells, *([one_line_cell(reason)] if any(reasons) else []))
    return table


def errors_table(records: list[dict[str, Any]]) -> Table | None:
    """The runs that ended without a verdict, so the user knows what --retry would rerun."""
    rows = [r for r in records if r.get("success") is None]
    if not rows:
        return None
    table = compact_table(f"runs without a verdict ({len(rows)}): rerun them with --retry")
    add_name(table, "scenario")
    add_fixed(table, "run")
    add_fixed(table, "status", "left")
    add_flexible(table, "reason")
    for r in rows[:MAX_ERROR_ROWS]:
        label = f"{r['split']}/{r.get('scenario_id')}" if r.get("split") else str(r.get("scenario_id"))
        table.add_row(
            name_cell(label),
            str(r.get("run_index", 1)),
            Text(printable(str(r.get("status")))),
            one_line_cell(str(r.get("error") or "")),
        )
    if len(rows) > MAX_ERROR_ROWS:
        table.caption = f"… and {len(rows) - MAX_ERROR_ROWS} more (see results.jsonl)"
    return table


def who_ran(info: RunInfo) -> list[str]:
    """What ran, for `ls` and `compare`: agent kind and provider/model, the judge, the image (its
    id when recorded) and the runner's version; for a re-judged run, the verdict set shown."""
    model = "/".join(x for x in (info.provider, info.model) if x) or "-"
    image = short_id(info.image_id) if info.image_id else info.image or "-"
    lines = [
        f"{info.agent or '-'} · {model}",
        f"judge {info.judge or '-'}",
        f"image {image} · v{info.runner_version or '-'}",
    ]
    if info.verdicts.rejudged:  # which set the numbers are from, once there are two
        lines.append(info.verdicts.describe())
    return lines
