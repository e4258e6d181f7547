"""The index page's charts: success by split (with ARE's standard error), success per run across the
k runs, and the distributions of run duration and tokens. Numbers come from output/summary.py, the
owner of the statistics, over the runs that have finished (a run in progress has no outcome yet)."""

from __future__ import annotations

from markupsafe import Markup

from gaia2_runner.output.read.record import RunRecord
from gaia2_runner.output.summary import NO_SPREAD, summarize

from .charts import Bar, bar_chart, histogram, percent, rate_bar

FINISHED = ("pass", "fail", "error")
SUCCESS_BY_SPLIT, PER_RUN, DURATION, TOKENS = "success-by-split", "success-per-run", "duration", "tokens"


def index_charts(rows: list[RunRecord], k: int) -> list[Markup]:
    """The charts in page order; a chart without data (no finished run, no tokens) is left out."""
    done = [r for r in rows if r.status in FINISHED]
    if not done:
        return []
    summary = summarize([r.summary_record() for r in done], pass_at=k)
    groups = dict(summary.splits)
    if len(groups) > 1:
        groups["overall"] = summary.overall
    bars = [
        rate_bar(
            name,
            stats.success_rate.value or 0.0,
            stats.success_rate.se,
            k,
            "total" if name == "overall" else "",
        )
        for name, stats in groups.items()
    ]
    note = (
        NO_SPREAD if k == 1 else f"error bars: ± SE over the {k} runs (ARE's: STD of the per-run rates / √k)"
    )
    charts = [
        bar_chart(SUCCESS_BY_SPLIT, "Success rate by split", bars, y_max=1.0, fmt=percent, caption=note)
    ]
    if k > 1:
        per_run = [
            Bar(
                f"run {i}",
                rate or 0.0,
                title=f"run {i}: {percent(rate)}" if rate is not None else f"run {i}: no run finished",
            )
            for i, rate in enumerate(summary.overall.success_rate.per_run, start=1)
        ]
        charts.append(
            bar_chart(
                PER_RUN,
                f"Success rate of each of the {k} runs",
                per_run,
                y_max=1.0,
                fmt=percent,
                caption="every finished run of each repetition counts (an error is a failure)",
            )
        )
    for chart in (
        histogram(DURATION, "Run duration", (r.wall_s for r in done), unit="s"),
        histogram(TOKENS, "Tokens per run (in + out)", (r.tokens for r in done)),
    ):
        if chart is not None:
            charts.append(chart)
    return charts
