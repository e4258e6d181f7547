"""`leaderboard` without containers: ARE's report numbers on hand-made verdicts, the submission
bundle's rows and schema (phase columns from each run's settings), the report at 80 columns, and
the settings a phase owns refused with one error line."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from cli_support import assert_one_error_line, invoke
from gaia2_contract.constants import NO_ORACLE_EVENTS_ERROR
from gaia2_runner.analysis import leaderboard_export
from gaia2_runner.analysis.leaderboard_complete import count_phases
from gaia2_runner.analysis.leaderboard_stats import StatRow, calculate
from gaia2_runner.analysis.staged_dir import EXPORT_MARKER
from leaderboard_synth import VERDICTS, leaderboard_root

ROWS = (
    [StatRow("standard", "execution", "s1", k, True) for k in (1, 2, 3)]
    + [
        StatRow("standard", "execution", "s2", 1, False),
        StatRow("standard", "execution", "s2", 2, True),
        StatRow("standard", "execution", "s2", 3, None),
    ]
    + [StatRow("noise", "mini", "s3", k, False) for k in (1, 2, 3)]
)


def test_statistics_in_ares_terms_by_hand():
    stats = calculate(ROWS)
    execution, mini = stats["per_capability"]["execution"], stats["per_capability"]["mini_noise"]
    assert mini["capability"] == "mini (noise)" and execution["capability"] == "execution"
    assert (execution["total_runs"], execution["validated_runs"], execution["exception_runs"]) == (6, 5, 1)
    assert execution["success_rate"] == pytest.approx(80.0)  # 4 of the 5 runs with a verdict
    # Run-level rates 50, 100, 100: sample STD 28.87, SE 16.67.
    assert execution["success_rate_std"] == pytest.approx(28.8675, abs=1e-3)
    assert execution["success_rate_sem"] == pytest.approx(16.6667, abs=1e-3)
    assert (execution["pass_at_k"], execution["pass_k"], execution["pass_k_percent"]) == (2, 1, 50.0)
    assert (mini["success_rate"], mini["pass_at_k"], mini["success_rate_std"]) == (0.0, 0, 0.0)
    overall = stats["global"]
    assert overall["macro_success_rate"] == pytest.approx(40.0)  # (80 + 0) / 2
    assert overall["micro_success_rate"] == pytest.approx(50.0)  # (80·5 + 0·3) / 8
    assert overall["macro_success_rate_std"] == pytest.approx(14.4338, abs=1e-3)  # of 25, 50, 50
    assert overall["micro_success_rate_std"] == pytest.approx(16.6667, abs=1e-3)  # of 33.3, 66.7, 50
    assert (overall["total_scenarios"], overall["pass_at_k"], overall["pass_k"]) == (3, 2, 1)


def test_bundle_of_a_leaderboard_root(tmp_path: Path, monkeypatch):
    root = leaderboard_root(tmp_path / "lb", monkeypatch)
    result = invoke(["export", str(root), "--format", "leaderboard"])
    assert result.exit_code == 0, result.output
    dest = root / "export_leaderboard"
    assert sorted(p.name for p in dest.iterdir()) == [
        EXPORT_MARKER,
        "README.md",
        "computed_stats.json",
        "execution",
        "mini_a2a",
        "mini_noise",
    ]
    tables = {
        name: pq.read_table(dest / name / "validation-00000-of-00001.parquet")
        for name in ("execution", "mini_a2a", "mini_noise")
    }
    assert [f.name for f in tables["execution"].schema] == list(leaderboard_export.HF_FIELDS)
    assert "run_type" in leaderboard_export.HF_FIELDS
    phase_columns = {
        name: {
            (r["phase_name"], r["config"], r["a2a_app_prop"], r["has_app_noise"], r["has_env_noise"])
            for r in t.to_pylist()
        }
        for name, t in tables.items()
    }
    assert phase_columns == {
        "execution": {("standard", "execution", 0.0, False, False)},
        "mini_a2a": {("agent2agent", "mini", 1.0, False, False)},
        "mini_noise": {("noise", "mini", 0.0, True, True)},
    }
    rows = tables["execution"].to_pylist()
    infra = [r for r in rows if r["scenario_id"] == "s2" and r["run_number"] == 3][0]
    assert (infra["score"], infra["status"], infra["has_exception"], infra["exception_type"]) == (
        None,
        "exception",
        True,
        "InfrastructureError",
    )
    assert sorted((r["scenario_id"], r["run_number"], r["score"]) for r in rows if r["score"] is not None)[
        :2
    ] == [("s1", 1, 1.0), ("s1", 2, 1.0)]
    stats = json.loads((dest / "computed_stats.json").read_text())
    assert set(stats["statistics"]["per_capability"]) == {"execution", "mini_noise", "mini_agent2agent"}
    assert stats["statistics"]["per_capability"]["mini_agent2agent"]["success_rate"] == pytest.approx(200 / 3)
    card = (dest / "README.md").read_text()
    assert "config_name: mini_a2a" in card and "path: mini_noise/validation-*" in card


def test_report_fits_80_columns(tmp_path: Path, monkeypatch):
    root = leaderboard_root(tmp_path / "lb", monkeypatch)
    monkeypatch.setenv("COLUMNS", "80")
    result = invoke(["leaderboard", "--report", "--output-dir", str(root)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80, result.output
    text = result.output
    assert text.index("standard (k = 3)") < text.index("agent2agent (k = 3)") < text.index("noise (k = 3)")
    assert text.index("noise (k = 3)") < text.index("overall")
    macro = next(line for line in lines if line.strip().startswith("macro"))
    assert "48.9%" in macro  # (80 + 66.7 + 0) / 3
    assert (root / "export_leaderboard" / "computed_stats.json").is_file()


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--pass-at", "2"], "No such option"),
        (["--noise"], "No such option"),
    ],
)
def test_phase_settings_are_not_options(tmp_path: Path, args, fragment):
    result = invoke(["leaderboard", "--output-dir", str(tmp_path), *args])
    assert result.exit_code == 2 and fragment in result.output


def test_phase_settings_in_a_toml_are_refused(tmp_path: Path):
    toml = tmp_path / "lb.toml"
    toml.write_text(
        '[target]\ndataset = "meta-agents-research-environments/gaia2"\n'
        f'[run]\nnoise = true\noutput_dir = "{tmp_path / "out"}"\n'
    )
    assert_one_error_line(invoke(["leaderboard", "--toml", str(toml)]), "leaderboard sets it for each phase")


def test_leaderboard_needs_the_hub_dataset_and_an_output_dir(tmp_path: Path):
    assert_one_error_line(invoke(["leaderboard", "--output-dir", str(tmp_path)]), "choose exactly one target")
    assert_one_error_line(
        invoke(["leaderboard", "--output-dir", str(tmp_path), "--dataset-root", str(tmp_path)]),
        "No such option",
    )
    assert_one_error_line(
        invoke(["leaderboard", "--dataset", "meta-agents-research-environments/gaia2"]), "no output directory"
    )
    toml = tmp_path / "lb.toml"
    toml.write_text(f'[target]\ndataset_root = "{tmp_path}"\n[run]\noutput_dir = "{tmp_path / "out"}"\n')
    assert_one_error_line(invoke(["leaderboard", "--toml", str(toml)]), "runs the hub dataset's configs")
    assert_one_error_line(
        invoke(["leaderboard", "--report", "--output-dir", str(tmp_path)]),
        "holds no leaderboard phase directory",
    )


def test_one_run_directory_exports_its_own_phase(tmp_path: Path, monkeypatch):
    root = leaderboard_root(tmp_path / "lb", monkeypatch)
    result = invoke(
        ["export", str(root / "agent2agent"), "--format", "leaderboard", "--out", str(tmp_path / "b")]
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "b").iterdir() if p.is_dir()) == ["mini_a2a"]
    rows = pq.read_table(tmp_path / "b" / "mini_a2a" / "validation-00000-of-00001.parquet").to_pylist()
    assert {(r["phase_name"], r["a2a_app_prop"], r["has_app_noise"]) for r in rows} == {
        ("agent2agent", 1.0, False)
    }
    assert sorted((r["run_number"], r["score"]) for r in rows) == [(1, 1.0), (2, 0.0), (3, 1.0)]


def test_each_phase_runs_with_its_settings_from_a_toml(tmp_path: Path, monkeypatch):
    from gaia2_runner.cli.launch import build_config
    from gaia2_runner.execution.leaderboard_plan import plan_phases
    from make_hub_dataset import make_hub_dataset

    monkeypatch.setenv("GAIA2_CACHE_DIR", str(tmp_path / "cache"))
    hub = make_hub_dataset(tmp_path / "hub")
    toml = tmp_path / "lb.toml"
    toml.write_text(
        f'[target]\ndataset = "{hub}"\n[agent]\nharness = "oracle"\n'
        f'[run]\noutput_dir = "{tmp_path / "out"}"\nconcurrency = 2\n'
    )
    jobs = plan_phases(build_config(toml, {}, None), split="validation", runs=3)
    got = {
        job.phase.name: (
            job.config.value("hub_config"),
            job.config.value("hub_split"),
            job.config.run.noise,
            job.config.value("a2a_app_prop"),
            job.plan.pass_at,
            job.plan.output_dir.name,
            sorted({ref.split for ref in job.plan.refs}),
            len(job.plan.refs),
        )
        for job in jobs
    }
    capabilities = ["execution", "search", "adaptability", "time", "ambiguity"]
    assert got == {
        "standard": (capabilities, "validation", False, None, 3, "standard", sorted(capabilities), 5),
        "agent2agent": (["mini"], "validation", False, 1.0, 3, "agent2agent", ["mini"], 2),
        "noise": (["mini"], "validation", True, None, 3, "noise", ["mini"], 2),
    }
    result = invoke(["leaderboard", "--toml", str(toml), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "noise (mini): 2 scenarios × 3 runs, 6 of 6 to run" in result.output
    assert not (tmp_path / "out").exists()  # a dry run writes nothing


WHOLE = {
    key: {sid: [v if v is not None else True for v in runs] for sid, runs in scenarios.items()}
    for key, scenarios in VERDICTS.items()
}


def test_an_entry_with_a_run_without_a_verdict_is_incomplete_and_not_uploaded(tmp_path: Path, monkeypatch):
    root = leaderboard_root(tmp_path / "lb", monkeypatch)
    counts = {c.phase: c for c in count_phases(root)}
    assert (
        counts["standard"].expected,
        counts["standard"].verdicted,
        counts["standard"].no_verdict,
        counts["standard"].missing,
    ) == (6, 5, 1, 0)
    assert counts["noise"].whole and counts["agent2agent"].whole
    monkeypatch.setenv("COLUMNS", "80")
    report = invoke(["leaderboard", "--report", "--output-dir", str(root)])
    assert report.exit_code == 0, report.output
    assert "INCOMPLETE: standard: 5 of 6 runs verdicted, 1 without a verdict, 0 missing" in report.output
    assert "simulated generation time:" in report.output
    uploads: list = []
    monkeypatch.setattr("gaia2_runner.cli.commands.leaderboard.upload", lambda *a: uploads.append(a))
    refused = invoke(["leaderboard", "--report", "--output-dir", str(root), "--hf-upload", "me/entry"])
    assert_one_error_line(refused, "1 runs without a verdict, 0 missing")
    assert "--retry" in refused.output and "standard" in refused.output and uploads == []
    monkeypatch.setattr("gaia2_runner.cli.commands.export.upload", lambda *a: uploads.append(a))
    exported = invoke(["export", str(root), "--format", "leaderboard", "--hf-upload", "me/entry"])
    assert_one_error_line(
        exported, "1 runs without a verdict, 0 missing"
    )  # export uploads no part entry either
    assert uploads == []


def test_an_entry_with_a_missing_run_or_phase_is_incomplete(tmp_path: Path, monkeypatch):
    root = leaderboard_root(tmp_path / "lb", monkeypatch, WHOLE)
    assert all(c.whole for c in count_phases(root))
    import shutil

    shutil.rmtree(root / "standard" / "run_2" / "execution" / "s1")  # never ran (or still going)
    counts = {c.phase: c for c in count_phases(root)}
    assert (counts["standard"].expected, counts["standard"].verdicted, counts["standard"].missing) == (
        6,
        5,
        1,
    )
    shutil.rmtree(root / "standard" / "run_3")  # the third run never started: its runs are still expected
    assert {c.phase: c for c in count_phases(root)}["standard"].missing == 3
    shutil.rmtree(root / "noise")
    counts = {c.phase: c for c in count_phases(root)}
    assert not counts["noise"].ran and counts["noise"].describe() == "noise: not run"
    monkeypatch.setattr("gaia2_runner.cli.commands.leaderboard.upload", lambda *a: pytest.fail("uploaded"))
    refused = invoke(["leaderboard", "--report", "--output-dir", str(root), "--hf-upload", "me/entry"])
    assert_one_error_line(refused, "0 runs without a verdict, 3 missing; phases not run: noise")


def test_a_whole_entry_is_uploaded_and_its_report_names_the_generation_time(tmp_path: Path, monkeypatch):
    root = leaderboard_root(tmp_path / "lb", monkeypatch, WHOLE)
    for run_config in root.glob("*/run_*/run_config.json"):
        doc = json.loads(run_config.read_text())
        doc["config"]["run"]["sim_generation_time"] = "measured"
        run_config.write_text(json.dumps(doc))
    uploads: list = []
    monkeypatch.setattr(
        "gaia2_runner.cli.commands.leaderboard.upload",
        lambda dest, repo: uploads.append(repo) or f"https://hf.example/{repo}",
    )
    monkeypatch.setenv("COLUMNS", "80")
    result = invoke(["leaderboard", "--report", "--output-dir", str(root), "--hf-upload", "me/entry"])
    assert result.exit_code == 0, result.output
    assert uploads == ["me/entry"] and "INCOMPLETE" not in result.output
    footer = next(line for line in result.output.splitlines() if line.startswith("simulated generation time"))
    assert footer == "simulated generation time: measured (ARE 1.2.0's own agent effectively: fixed:0)"
    assert len(footer) <= 80


def test_report_and_export_put_the_rows_in_the_split_the_runs_read(tmp_path: Path, monkeypatch):
    """Runs of the hub's test split: the bundle's files and card name `test` without --split/--hf-split
    (a report or re-export must not relabel them validation); a split given explicitly still wins."""
    root = leaderboard_root(tmp_path / "lb", monkeypatch, hub_split="test")
    assert invoke(["leaderboard", "--report", "--output-dir", str(root)]).exit_code == 0
    dest = root / "export_leaderboard"
    assert (dest / "execution" / "test-00000-of-00001.parquet").is_file()
    assert "- split: test" in (dest / "README.md").read_text()
    assert invoke(["export", str(root), "--format", "leaderboard", "--hf-split", "validation"]).exit_code == 0
    assert sorted(p.name for p in (dest / "execution").iterdir()) == ["validation-00000-of-00001.parquet"]


def test_a_scenario_without_oracle_events_is_no_validation_not_an_exception(tmp_path: Path, monkeypatch):
    """As ARE's report: no verdict and no exception (the hub's test split holds no oracle events) is
    `no_validation`; an infrastructure error stays `exception`."""
    root = leaderboard_root(tmp_path / "lb", monkeypatch)
    result_file = root / "standard" / "run_3" / "execution" / "s2" / "result.json"
    doc = json.loads(result_file.read_text())
    result_file.write_text(json.dumps({**doc, "status": "error", "error": NO_ORACLE_EVENTS_ERROR}))
    assert invoke(["export", str(root), "--format", "leaderboard"]).exit_code == 0
    dest = root / "export_leaderboard"
    rows = pq.read_table(dest / "execution" / "validation-00000-of-00001.parquet").to_pylist()
    unjudged = next(r for r in rows if (r["scenario_id"], r["run_number"]) == ("s2", 3))
    assert (unjudged["score"], unjudged["status"], unjudged["has_exception"], unjudged["exception_type"]) == (
        None,
        "no_validation",
        False,
        None,
    )
    configurations = json.loads((dest / "computed_stats.json").read_text())["run_configurations"]
    execution = next(c for c in configurations if c["config"] == "execution")
    assert (execution["no_validation_runs"], execution["exception_runs"]) == (1, 0)
    assert unjudged["rationale"] is None  # as ARE leaves it for such a run
    counts = {c.phase: c for c in count_phases(root)}
    # done: a rerun could never give it a verdict, so it does not make the entry incomplete
    assert counts["standard"].no_verdict == 0 and counts["standard"].whole
