"""`export --format leaderboard`: what a Gaia2 submission uploads, in the shapes of ARE's
`hf_upload_utils` (its row columns and arrow schema, `create_hf_schema`; one parquet per upload
config, `<config><phase suffix>/<split>-00000-of-00001.parquet`; the stats file
`computed_stats.json` in the terms of `generate_json_stats_report`), ready for `--hf-upload`.

One run directory gives its own rows; a `leaderboard` root gives every phase's. Each run's phase
columns (phase_name, a2a_app_prop, has_app_noise, has_env_noise) come from the settings it ran
with (its run_config.json), never from where it lies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaia2_runner import __version__
from gaia2_runner.analysis import leaderboard_stats as stats
from gaia2_runner.analysis.are_export import trace_text
from gaia2_runner.analysis.staged_dir import staged_dir
from gaia2_runner.config.defaults import DEFAULT_HUB_SPLIT
from gaia2_runner.config.schema import SETTINGS
from gaia2_runner.output import leaderboard_phases as phases
from gaia2_runner.output.atomic import write_bytes_atomic, write_json_atomic
from gaia2_runner.output.read.record import load_runs
from gaia2_runner.output.read.run_files import first_run_config
from gaia2_runner.output.read.safe_io import output_root
from gaia2_runner.output.read.verdicts import CURRENT
from gaia2_runner.output.summary import NO_SPLIT
from gaia2_runner.text import now_iso

# ARE's create_hf_schema, in its order: (column, arrow type name).
HF_SCHEMA = (
    ("scenario_id", "string"),
    ("run_number", "int64"),
    ("task_id", "string"),
    ("score", "float64"),
    ("status", "string"),
    ("data", "string"),
    ("run_type", "string"),
    ("config", "string"),
    ("phase_name", "string"),
    ("a2a_app_prop", "float64"),
    ("has_app_noise", "bool_"),
    ("has_env_noise", "bool_"),
    ("run_config", "string"),
    ("has_exception", "bool_"),
    ("exception_type", "string"),
    ("exception_message", "string"),
    ("rationale", "string"),
)
HF_FIELDS = tuple(name for name, _ in HF_SCHEMA)
STATS_FILE = "computed_stats.json"  # ARE's name on the hub
CARD_FILE = "README.md"
EXCEPTION_TYPE = "InfrastructureError"  # a run without a verdict: never the agent's failure


@dataclass
class Bundle:
    """The upload rows by upload config name, the runs they score, and the runs without ARE's trace."""

    groups: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    rows: list[stats.StatRow] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    model: str | None = None
    provider: str | None = None
    hub_split: str | None = None  # the hub split the runs read (the first run's that names one)

    def split(self, chosen: str | None = None) -> str:
        """The split the rows go in: the one chosen, else the runs', else the hub's default."""
        return chosen or self.hub_split or DEFAULT_HUB_SPLIT

    @property
    def count(self) -> int:
        return sum(len(rows) for rows in self.groups.values())


def _setting_value(config_doc: dict[str, Any], flag: str) -> Any:
    """A setting's value in run_config.json's `config`, the setting found by its flag (None: no such
    setting in this runner, or not set)."""
    for setting in SETTINGS:
        if setting.flag == flag:
            return phases.run_settings(config_doc, setting.section, setting.key)
    return None


def add_run(bundle: Bundle, output_dir: Path, verdicts: str = CURRENT, prefix: str = "") -> None:
    """Add one run directory's rows (`prefix`: where it lies under the exported root, for `missing`)."""
    root = output_root(output_dir)
    run_config = first_run_config(root) or {}
    config_doc = run_config.get("config") or {}
    noise = bool(phases.run_settings(config_doc, "run", "noise"))
    a2a = float(_setting_value(config_doc, phases.A2A_FLAG) or 0.0)
    phase = phases.phase_name(a2a, noise)
    configs = _setting_value(config_doc, phases.CONFIG_FLAG)  # the hub layout's configs are our splits
    only_config = configs[0] if isinstance(configs, list) and len(configs) == 1 else None
    config_json = json.dumps(config_doc, indent=2)
    agent = config_doc.get("agent") or {}
    bundle.model = bundle.model or agent.get("model") or agent.get("harness")
    bundle.provider = bundle.provider or agent.get("provider")
    bundle.hub_split = bundle.hub_split or _setting_value(config_doc, phases.SPLIT_FLAG)
    for row, _ in load_runs(root, verdicts):
        data = trace_text(root, root / row.dir)
        if data is None:
            bundle.missing.append(f"{prefix}{row.dir or '.'}")
        config = str(row.split or only_config or NO_SPLIT)
        stat = stats.StatRow(
            phase,
            config,
            row.scenario_id,
            row.run,
            row.success,
            duration=row.wall_s,
            exception=not stats.no_validation(row.success, row.reason),
        )
        exception = stat.status == stats.EXCEPTION
        bundle.groups.setdefault(phases.upload_config_name(config, phase), []).append(
            {
                "scenario_id": row.scenario_id,
                "run_number": row.run,
                "task_id": row.scenario_id,
                "score": stat.score,
                "status": stat.status,
                "data": data,
                "run_type": None,
                "config": config,
                "phase_name": phase,
                "a2a_app_prop": a2a,
                "has_app_noise": noise,
                "has_env_noise": noise,
                "run_config": config_json,
                "has_exception": exception,
                "exception_type": EXCEPTION_TYPE if exception else None,
                "exception_message": row.reason if exception else None,
                "rationale": None if stat.status == stats.NO_VALIDATION else row.reason or None,
            }
        )
        bundle.rows.append(stat)


def collect(output_dir: Path, verdicts: str = CURRENT) -> Bundle:
    """The rows of a run directory, or of every phase directory of a `leaderboard` root."""
    bundle = Bundle()
    root = Path(output_dir).expanduser()
    found = phases.phase_dirs(root)
    if not found:
        add_run(bundle, root, verdicts)
    for phase, directory in found:
        add_run(bundle, directory, verdicts, prefix=f"{phase}/")
    return bundle


def stats_report(bundle: Bundle) -> dict[str, Any]:
    """computed_stats.json: ARE's generate_json_stats_report shape (metadata, statistics,
    run_configurations)."""
    configurations = []
    for _name, rows in sorted(bundle.groups.items()):
        first = rows[0]
        part = [r for r in bundle.rows if (r.phase, r.config) == (first["phase_name"], first["config"])]
        statuses = [r.status for r in part]
        configurations.append(
            {
                "phase_name": first["phase_name"],
                "config": first["config"],
                "a2a_app_prop": first["a2a_app_prop"],
                "has_tool_augmentation": first["has_app_noise"],
                "has_env_events": first["has_env_noise"],
                "total_runs": len(part),
                "validated_runs": sum(r.score is not None for r in part),
                **{
                    f"{s}_runs": statuses.count(s)
                    for s in (stats.SUCCESS, stats.FAILED, stats.EXCEPTION, stats.NO_VALIDATION)
                },
            }
        )
    return {
        "metadata": {
            "model": bundle.model,
            "model_provider": bundle.provider,
            "timestamp": now_iso(),
            "runner_version": __version__,
        },
        "statistics": stats.calculate(bundle.rows),
        "run_configurations": configurations,
    }


def write_bundle(bundle: Bundle, dest: Path, split: str, named: bool = True) -> None:
    """The parquet files, the dataset card and computed_stats.json: `dest`, replaced whole."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(name, getattr(pa, kind)()) for name, kind in HF_SCHEMA])
    with staged_dir(dest, named) as staging:
        for config, rows in sorted(bundle.groups.items()):
            sink = pa.BufferOutputStream()
            pq.write_table(pa.Table.from_pylist(rows, schema=schema), sink)
            (staging / config).mkdir()
            write_bytes_atomic(
                staging / config / f"{split}-00000-of-00001.parquet", sink.getvalue().to_pybytes()
            )
        write_bytes_atomic(staging / CARD_FILE, _card(sorted(bundle.groups), split).encode("utf-8"))
        write_json_atomic(staging / STATS_FILE, stats_report(bundle))


def export_leaderboard(
    output_dir: Path, dest: Path, split: str | None = None, verdicts: str = CURRENT, named: bool = True
) -> tuple[int, list[str]]:
    """(rows written, runs without ARE's trace) for a run directory or a `leaderboard` root; the
    rows go in `split`, else the hub split the runs read."""
    bundle = collect(
        output_root(output_dir)
        if not phases.is_leaderboard_root(Path(output_dir).expanduser())
        else Path(output_dir).expanduser(),
        verdicts,
    )
    if bundle.count:
        write_bundle(bundle, dest, bundle.split(split), named)
    return bundle.count, bundle.missing


def _card(configs: list[str], split: str) -> str:
    lines = ["---", "configs:"]
    for config in configs:
        lines += [
            f"- config_name: {config}",
            "  data_files:",
            f"  - split: {split}",
            f"    path: {config}/{split}-*",
        ]
    lines += [
        "---",
        "",
        "# Gaia2 results",
        "",
        "Written by `gaia2-runner export --format leaderboard`: one row per run in the columns of ARE's",
        "Gaia2 submission upload (`data` holds ARE's trace of the run; `computed_stats.json` the",
        "numbers in the terms of ARE's report).",
        "",
    ]
    return "\n".join(lines)
