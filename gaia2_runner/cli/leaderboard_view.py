"""The leaderboard report on the terminal, in ARE's terms (analysis/leaderboard_stats.py): one
table per phase (each capability: runs, infra errors, success rate ± SE and STD across the runs,
pass@k, pass^k), then the overall rates (macro, micro, pass@k, pass^k). Fits 80 columns."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from gaia2_runner.cli.display import add_fixed, add_name, compact_table
from gaia2_runner.output.leaderboard_phases import PHASE_NAMES

CAPABILITY_WIDTH = 14


def _pct(value: float) -> str:
    return f"{value:.1f}%"  # ARE's figures are already percentages


def _rate_cells(stats: dict[str, Any], prefix: str = "") -> list[str]:
    return [
        _pct(stats[f"{prefix}success_rate"]),
        _pct(stats[f"{prefix}success_rate_sem"]),
        _pct(stats[f"{prefix}success_rate_std"]),
    ]


def phase_table(phase: str, capabilities: list[dict[str, Any]], runs: int) -> Table:
    table = compact_table(f"{phase} (k = {runs})")
    add_name(table, "config", CAPABILITY_WIDTH)
    for name in ("runs", "infra", "success", "± SE", "STD", f"pass@{runs}", f"pass^{runs}"):
        add_fixed(table, name)
    for stats in capabilities:
        table.add_row(
            Text(stats["capability"].split(" (")[0]),
            str(stats["total_runs"]),
            Text(str(stats["exception_runs"]), style="yellow" if stats["exception_runs"] else ""),
            *_rate_cells(stats),
            _pct(stats["pass_at_k_percent"]),
            _pct(stats["pass_k_percent"]),
        )
    return table


def overall_table(stats: dict[str, Any], runs: int) -> Table:
    table = compact_table("overall")
    add_name(table, "rate", CAPABILITY_WIDTH)
    for name in ("value", "± SE", "STD"):
        add_fixed(table, name)
    table.add_row("macro", *_rate_cells(stats, "macro_"))
    table.add_row("micro", *_rate_cells(stats, "micro_"))
    table.add_row(f"pass@{runs}", _pct(stats["pass_at_k_percent"]), "-", "-")
    table.add_row(f"pass^{runs}", _pct(stats["pass_k_percent"]), "-", "-")
    return table


def overall_note(stats: dict[str, Any]) -> Text:
    return Text(
        f"{stats['total_scenarios']} scenarios, {stats['total_runs']} runs, "
        f"{stats['exception_runs']} infra errors (in no rate; ARE counts them failed)",
        overflow="fold",
    )


def render(statistics: dict[str, Any], phases_of: dict[str, str], runs: int) -> Group:
    """Per-phase tables (phases in ARE's order), then the overall one; `phases_of` maps each
    capability key to its phase."""
    parts: list[Any] = []
    for phase in PHASE_NAMES:
        rows = [s for key, s in statistics["per_capability"].items() if phases_of.get(key) == phase]
        if rows:
            parts += [phase_table(phase, rows, runs), Text("")]
    parts += [overall_table(statistics["global"], runs), overall_note(statistics["global"])]
    return Group(*parts)
