"""The ARE-style report on the terminal: one row per split, overall, then the global rates."""

from __future__ import annotations

from gaia2_runner.output.summary import GroupStats, Rate, Summary
from rich.console import Group
from rich.table import Table
from rich.text import Text

from gaia2_runner.text import printable


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _rate_cell(rate: Rate) -> str:
    if rate.value is None:
        return "-"
    return f"{_pct(rate.value)} ± {_pct(rate.se)} (STD {_pct(rate.std)})"


def _secs(mean_s: float | None, std_s: float | None) -> str:
    return "-" if mean_s is None else f"{mean_s:.1f}s (STD {std_s or 0:.1f}s)"


def render_summary(summary: Summary) -> Group:
    """The report as a rich table (one row per split, then overall) and a global line."""
    k = summary.pass_at
    table = Table(title="gaia2-runner report")
    for name in ("split", "scenarios", "runs", "success rate", f"pass@{k}", f"pass^{k}",
                 "infra errors", "avg run duration"):
        table.add_column(name, justify="left" if name in ("split", "success rate") else "right")

    def row(name: str, s: GroupStats, style: str = "") -> None:
        table.add_row(Text(printable(name)), str(s.scenarios), str(s.runs), _rate_cell(s.success_rate),
                      f"{s.pass_at_k} ({_pct(s.pass_at_k_rate)})",
                      f"{s.pass_hat_k} ({_pct(s.pass_hat_k_rate)})",
                      Text(str(s.infra_errors), style="yellow" if s.infra_errors else ""),
                      _secs(s.avg_run_duration_s, s.run_duration_std_s), style=style)

    for name, stats in summary.splits.items():
        row(name, stats)
    if len(summary.splits) > 1:
        table.add_section()
        row("overall", summary.overall, style="bold")
    job = "-" if summary.job_duration_s is None else f"{summary.job_duration_s:.1f}s"
    lines = [f"macro success rate: {_rate_cell(summary.macro)}",
             f"micro success rate: {_rate_cell(summary.micro)}",
             f"job duration: {job}"]
    if summary.missing_runs:
        lines.append(f"[yellow]runs without a result: {summary.missing_runs}[/]")
    if summary.complete:
        lines.append("[dim]every run counts; runs without a verdict would count as failures[/]")
    else:
        verdicts = summary.overall.success_rate_verdicts_only
        lines.append(f"[yellow]INCOMPLETE: {summary.infra_errors} runs without a verdict count as failures "
                     f"above; over verdicts only: {_rate_cell(verdicts)} (rerun them with --retry)[/]")
    return Group(table, *(Text.from_markup(line) for line in lines))
