"""The ARE-style report on the terminal: per split and overall, then the global rates.

Two narrow tables rather than one wide one, so the report reads at 80 columns (CI logs, pipes):
runs (success rate, its ± SE and STD across the k runs, infra errors, run time), then scenarios
(pass@k, pass^k). Each figure has its own column, and no header or number ever wraps.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Group
from rich.table import Table
from rich.text import Text

from gaia2_runner.cli.display import add_fixed, add_name, compact_table, pct
from gaia2_runner.output.summary import NO_SPREAD, GroupStats, Rate, Summary
from gaia2_runner.text import printable

MAX_SPLIT_WIDTH = 20


def rate_text(rate: Rate) -> str:
    """ARE's wording, for the lines under the tables: `53.3% ± 6.7% (STD 11.5%)`; with one
    repetition `53.3% (k = 1: no spread)`."""
    if rate.value is None:
        return "-"
    if not rate.has_spread:
        return f"{pct(rate.value)} ({NO_SPREAD})"
    return f"{pct(rate.value)} ± {pct(rate.se)} (STD {pct(rate.std)})"


def _secs(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _count(count: int, rate: float | None) -> str:
    return f"{count} ({pct(rate)})"


def _table(title: str | None) -> Table:
    table = compact_table(title)
    add_name(table, "split", MAX_SPLIT_WIDTH)
    return table


def runs_table(summary: Summary) -> Table:
    """Per split: runs, infra errors, success rate ± SE (STD) over the k runs, run seconds; with
    k = 1 no ± SE and STD columns (a caption says there is no spread)."""
    spread = summary.pass_at > 1
    table = _table(f"gaia2-runner report: runs (k = {summary.pass_at})")
    for name in ("runs", "infra", "success", *(("± SE", "STD") if spread else ()), "avg s", "STD s"):
        add_fixed(table, name)
    if not spread:
        table.caption = f"success: {NO_SPREAD} (--pass-at K runs each scenario K times)"

    def row(s: GroupStats) -> list[str | Text]:
        rate, seconds = s.success_rate, s.avg_run_duration_s
        cells = ["-", "-"] if not rate.has_spread else [pct(rate.se), pct(rate.std)]
        return [
            str(s.runs),
            Text(str(s.infra_errors), style="yellow" if s.infra_errors else ""),
            Text(pct(rate.value), style="bold"),
            *(cells if spread else []),
            _secs(seconds),
            _secs(None if seconds is None else s.run_duration_std_s or 0),
        ]

    _fill(table, summary, row)
    return table


def scenarios_table(summary: Summary) -> Table:
    """Per split: scenarios, solved at least once (pass@k), solved every time (pass^k)."""
    k = summary.pass_at
    table = _table(f"scenarios (k = {k})")
    for name in ("scenarios", f"pass@{k}", f"pass^{k}"):
        add_fixed(table, name)
    _fill(
        table,
        summary,
        lambda s: [
            str(s.scenarios),
            _count(s.pass_at_k, s.pass_at_k_rate),
            _count(s.pass_hat_k, s.pass_hat_k_rate),
        ],
    )
    return table


def _fill(table: Table, summary: Summary, row: Callable[[GroupStats], list[str | Text]]) -> None:
    """One row per split, then (with several splits) the overall row under a rule."""
    for name, stats in summary.splits.items():
        table.add_row(Text(printable(name), no_wrap=False, overflow="fold"), *row(stats))
    if len(summary.splits) > 1:
        table.add_section()
        table.add_row(Text("overall"), *row(summary.overall), style="bold")


def render_summary(summary: Summary, noise: bool = False) -> Group:
    """The report: the two tables, then the global rates and whether the run set is complete."""
    job = "-" if summary.job_duration_s is None else f"{summary.job_duration_s:.1f}s"
    lines = (
        ["noise: on (ARE's noise mode: random tool failures, renamed tools, extra ENV events)"]
        if noise
        else []
    )
    lines += [
        f"macro success rate: {rate_text(summary.macro)}",
        f"micro success rate: {rate_text(summary.micro)}",
        f"job duration: {job}",
    ]
    if summary.missing_runs:
        lines.append(
            f"[yellow]INCOMPLETE: runs without a result yet: {summary.missing_runs} "
            "(rerun the same command)[/]"
        )
    if summary.infra_errors:
        n = summary.infra_errors
        runs = (
            "1 run without a verdict counts as failed"
            if n == 1
            else f"{n} runs without a verdict count as failed"
        )
        lines.append(f"[yellow]INCOMPLETE: {runs} (rerun with --retry)[/]")
        lines.append(
            f"[yellow]success rate over verdicts only: "
            f"{rate_text(summary.overall.success_rate_verdicts_only)}[/]"
        )
    if summary.complete:
        lines.append("[dim]every run counts; runs without a verdict would count as failures[/]")
    return Group(
        runs_table(summary), Text(""), scenarios_table(summary), *(Text.from_markup(line) for line in lines)
    )
