"""Run inside the runtime image (ARE 1.2.0 at /opt/gaia2/venv): ARE's own submission code on our
leaderboard bundle. Usage: python are_submission_check.py BUNDLE_DIR OUT_DIR MODEL PROVIDER

Reads each `<config>/<split>-*.parquet` of the bundle and checks it with ARE's functions:
- its arrow schema is ARE's `create_hf_schema()` and ARE's upload builds its table from the rows;
- its directory is `create_config_name(config, phase_name)` of every row (`parse_config_name` back);
- the rows become ARE's results (MultiScenarioValidationResult per (phase, config, a2a, noise)
  key, as gaia2_submission makes them); `generate_submission_summary` and the upload's
  `generate_gaia2_dataset_readme` accept them; ARE's `build_trace_rows_polars` gives back our rows;
- our computed_stats.json equals ARE's `generate_json_stats_report` statistics on them.
Prints `ARE-ACCEPTS <json of ARE's global stats>` at the end; any mismatch raises.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from are.simulation.benchmark.hf_config_utils import create_config_name, parse_config_name
from are.simulation.benchmark.hf_upload_utils import (
    create_hf_schema,
    generate_gaia2_dataset_readme,
    generate_json_stats_report_wrapper,
    generate_submission_summary,
)
from are.simulation.benchmark.report_stats import build_trace_rows_polars, combine_results_to_dataframe
from are.simulation.scenarios.config import MultiScenarioRunnerConfig
from are.simulation.scenarios.validation_result import MultiScenarioValidationResult, ScenarioValidationResult

SKIP_STATS = {"avg_run_duration", "avg_run_duration_std", "job_duration"}  # the bundle carries no durations


def close(ours: object, theirs: object, where: str) -> None:
    if isinstance(theirs, float) or isinstance(ours, float):
        assert math.isclose(float(ours), float(theirs), rel_tol=1e-9, abs_tol=1e-9), (where, ours, theirs)
    else:
        assert ours == theirs, (where, ours, theirs)


def main(bundle: Path, out: Path, model: str, provider: str) -> None:
    schema = create_hf_schema()
    results: dict[tuple, MultiScenarioValidationResult] = {}
    ours: dict[tuple, dict] = {}
    traces = out / "traces"
    traces.mkdir(parents=True, exist_ok=True)
    for directory in sorted(p for p in bundle.iterdir() if p.is_dir()):
        (file,) = directory.glob("*.parquet")
        table = pq.read_table(file)
        assert table.schema.equals(schema), (directory.name, table.schema)
        rows = table.to_pylist()
        pa.Table.from_pylist(rows, schema=schema)  # as ARE's upload builds each config's table
        for row in rows:
            assert create_config_name(row["config"], row["phase_name"]) == directory.name, (
                directory.name,
                row,
            )
            assert parse_config_name(directory.name) == (row["config"], row["phase_name"])
            key = (
                row["phase_name"],
                row["config"],
                row["a2a_app_prop"],
                row["has_app_noise"],
                row["has_env_noise"],
            )
            result = results.setdefault(
                key,
                MultiScenarioValidationResult(
                    run_config=MultiScenarioRunnerConfig(
                        model=model, model_provider=provider, agent="default"
                    )
                ),
            )
            export_path = None
            if row["data"] is not None:
                export_path = traces / f"{directory.name}__{row['scenario_id']}_run_{row['run_number']}.json"
                export_path.write_text(row["data"])
                assert json.loads(row["data"])["metadata"], "data is ARE's trace export"
            exception = (
                type(row["exception_type"], (Exception,), {})(row["exception_message"])
                if row["has_exception"]
                else None
            )
            success = None if row["score"] is None else row["score"] == 1.0
            result.add_result(
                ScenarioValidationResult(
                    success=success,
                    exception=exception,
                    export_path=None if export_path is None else str(export_path),
                    rationale=row["rationale"],
                ),
                row["scenario_id"],
                row["run_number"],
            )
            ours[(row["phase_name"], row["config"], row["scenario_id"], row["run_number"])] = row
    assert results, "no rows in the bundle"
    generate_submission_summary(str(out), results, model, provider, 3)
    summary = (out / "submission_summary.md").read_text()
    assert "## Results Summary" in summary and "Global Summary" in summary, summary
    readme = generate_gaia2_dataset_readme(results, model, provider, "local", "validation")
    for directory in bundle.iterdir():
        if directory.is_dir():
            assert f"config_name: {directory.name}" in readme, directory.name
    # ARE's rows from its results: ours, column by column (ARE leaves out None values and run_config).
    theirs = build_trace_rows_polars(combine_results_to_dataframe(results))
    assert len(theirs) == len(ours), (len(theirs), len(ours))
    for row in theirs:
        mine = ours[(row["phase_name"], row["config"], row["scenario_id"], row["run_number"])]
        for name, value in row.items():
            close(mine[name], value, f"row {row['scenario_id']} run {row['run_number']} {name}")
        assert all(mine[n] is None for n in set(mine) - set(row) - {"run_config"}), (row, mine)
    # The numbers: ARE's report on ARE's results against our computed_stats.json.
    are_stats = generate_json_stats_report_wrapper(results, model, provider)["statistics"]
    our_stats = json.loads((bundle / "computed_stats.json").read_text())["statistics"]
    assert set(are_stats["per_capability"]) == set(our_stats["per_capability"]), (are_stats, our_stats)
    for capability, stats in are_stats["per_capability"].items():
        for name, value in stats.items():
            if name not in SKIP_STATS:
                close(our_stats["per_capability"][capability][name], value, f"{capability} {name}")
    for name, value in are_stats["global"].items():
        if name not in SKIP_STATS:
            close(our_stats["global"][name], value, f"global {name}")
    print(
        "ARE-ACCEPTS",
        json.dumps({k: v for k, v in are_stats["global"].items() if k not in SKIP_STATS}, sort_keys=True),
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4])
