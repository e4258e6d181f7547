"""`leaderboard`: a whole Gaia2 leaderboard entry from one command, as ARE's `gaia2-run` makes it:
three phases × k runs (output/leaderboard_phases.py), each phase an ordinary run-dataset
output directory under --output-dir, resumable; then the report in ARE's terms and the submission
bundle (`export --format leaderboard` of every phase), optionally uploaded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.rule import Rule
from rich.text import Text

from gaia2_contract.generation_time import MEASURED
from gaia2_runner.analysis import leaderboard_export as bundle_export
from gaia2_runner.analysis.export import default_path, upload
from gaia2_runner.analysis.leaderboard_complete import count_phases, upload_refusal
from gaia2_runner.analysis.leaderboard_stats import capability_key
from gaia2_runner.cli.console import err, out
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.launch import ENV_FILE_HELP, OVERWRITE_HELP, build_config, launch
from gaia2_runner.cli.leaderboard_view import render
from gaia2_runner.cli.options import settings_named, with_settings
from gaia2_runner.config import defaults as D
from gaia2_runner.config.setting import PANELS
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.leaderboard_plan import (
    COMMAND,
    PhaseJob,
    check_setups,
    owned_settings,
    plan_phases,
)
from gaia2_runner.exit_codes import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from gaia2_runner.output.leaderboard_phases import is_leaderboard_root, phase_dirs, run_settings
from gaia2_runner.output.read.run_files import first_run_config
from gaia2_runner.output.read.safe_io import output_root
from gaia2_runner.text import printable

LEADERBOARD_PANEL = "Leaderboard"
TOML_FLAG = "--toml"  # not --config: run-dataset's --config picks the hub dataset's configs


_CONFIG_PATH_OPTION = typer.Option(
    None,
    TOML_FLAG,
    help="TOML run configuration (as run-config's "
    "--config; the phases set configs, split, runs, noise and "
    "Agent2Agent). Named --toml: --config picks hub configs elsewhere.",
)
_SPLIT_OPTION = typer.Option(
    None,
    "--split",
    rich_help_panel=LEADERBOARD_PANEL,
    help=f"Dataset split every phase runs (default {D.DEFAULT_HUB_SPLIT}; "
    "with --report: the split the runs read).",
)
_RUNS_OPTION = typer.Option(
    D.LEADERBOARD_RUNS,
    "--runs",
    min=1,
    max=D.MAX_PASS_AT,
    help="Runs of every scenario in each phase (ARE's submission: 3).",
    rich_help_panel=LEADERBOARD_PANEL,
)
_REPORT_OPTION = typer.Option(
    False,
    "--report",
    help="Run nothing: report on --output-dir and write its bundle.",
    rich_help_panel=LEADERBOARD_PANEL,
)
_HF_UPLOAD_OPTION = typer.Option(
    None,
    "--hf-upload",
    metavar="REPO",
    rich_help_panel=LEADERBOARD_PANEL,
    help="Also upload the bundle to this Hugging Face dataset repo (token from HF_TOKEN).",
)
_DRY_RUN_OPTION = typer.Option(
    False,
    "--dry-run",
    help="Check every phase and print what would run; no container starts.",
    rich_help_panel=PANELS["execution"],
)
_OVERWRITE_OPTION = typer.Option(False, "--overwrite", help=OVERWRITE_HELP, rich_help_panel=PANELS["output"])


@friendly
@with_settings(settings_named(exclude=owned_settings()))
def leaderboard_cmd(
    config_path: str | None = _CONFIG_PATH_OPTION,
    split: str | None = _SPLIT_OPTION,
    runs: int = _RUNS_OPTION,
    report: bool = _REPORT_OPTION,
    hf_upload: str | None = _HF_UPLOAD_OPTION,
    env_file: str | None = typer.Option(None, "--env-file", help=ENV_FILE_HELP),
    dry_run: bool = _DRY_RUN_OPTION,
    overwrite: bool = _OVERWRITE_OPTION,
    settings: dict[str, Any] = None,  # type: ignore[assignment]
) -> None:
    """Run a Gaia2 leaderboard entry: standard (five capability configs), agent2agent and noise
    (config mini), each scenario 3 times; then ARE's report and the submission bundle.

    One run-dataset output directory per phase under --output-dir (a split
    per config), each read by ls, view, judge and export. Rerunning the
    command resumes: finished runs are kept. Exit codes as for run-dataset
    (the worst phase's).
    """
    if report:  # reads what is there: no target, no keys needed
        given = settings.get("output_dir")
        root = Path(given or "").expanduser()
        if not given or not is_leaderboard_root(root):
            raise Gaia2Error(
                f"--report: {given or '--output-dir'} holds no leaderboard phase directory "
                "(standard/, agent2agent/, noise/): give the --output-dir a leaderboard run wrote"
            )
        raise typer.Exit(finish(root, split, hf_upload))
    base = build_config(config_path, settings, env_file, TOML_FLAG)
    split = split or D.DEFAULT_HUB_SPLIT
    jobs = plan_phases(base, split=split, runs=runs, retry=bool(settings.get("retry")), overwrite=overwrite)
    if dry_run:
        show_plan(jobs)
        raise typer.Exit(EXIT_OK)
    check_setups(jobs)
    code = EXIT_OK
    for job in jobs:
        phase_code = run_phase(job, bool(settings.get("retry")), overwrite)
        if phase_code in (
            EXIT_INTERRUPTED,
            EXIT_USAGE,
        ):  # Ctrl-C, or a configuration fault the next phase would hit too
            out.print(
                "[yellow]stopped: rerun the same command (with --retry after a fix) to finish the phases[/]"
            )
            raise typer.Exit(phase_code)
        code = max(code, phase_code)
    assert base.run.output_dir is not None  # validate() guarantees it (check_base relies on it too)
    raise typer.Exit(max(code, finish(Path(base.run.output_dir), split, hf_upload)))


def show_plan(jobs: list[PhaseJob]) -> None:
    for job in jobs:
        selection, total = job.plan.selection(), len(job.plan.refs) * job.plan.pass_at
        out.print(
            Text(
                printable(
                    f"{job.label}: {len(job.plan.refs)} scenarios × {job.plan.pass_at} runs, "
                    f"{len(selection.todo)} of {total} to run → {job.plan.output_dir}"
                ),
                overflow="fold",
            )
        )


def run_phase(job: PhaseJob, retry: bool, overwrite: bool) -> int:
    """One phase through run-dataset's path; one whose every run is done starts nothing."""
    out.print(Rule(Text(printable(job.label))))
    if not job.plan.selection().todo:
        out.print(Text(printable(f"{job.phase.name}: all {len(job.plan.jobs())} runs done (kept)")))
        return EXIT_OK
    outcome = launch(job.config, command=COMMAND, out=out, err=err, retry=retry, overwrite=overwrite)
    return outcome if isinstance(outcome, int) else outcome.exit_code


def finish(root: Path, split: str | None, hf_upload: str | None) -> int:
    """The report of every phase found under `root`, the bundle written (and uploaded only when
    every planned run of every phase has a verdict: a published number is a whole entry's)."""
    counts = count_phases(root)
    refusal = upload_refusal(counts) if hf_upload is not None else None
    if refusal is not None:
        raise Gaia2Error(refusal)
    bundle = bundle_export.collect(root)
    if not bundle.count:
        raise Gaia2Error(f"{root}: no finished run in any phase: nothing to report")
    statistics = bundle_export.stats_report(bundle)["statistics"]
    phases_of = {capability_key(r.config, r.phase): r.phase for r in bundle.rows}
    out.print(Rule("leaderboard"))
    out.print(render(statistics, phases_of, max(r.run for r in bundle.rows)))
    out.print(Text(printable(generation_note(root)), overflow="fold"))
    for count in counts:
        if not count.whole:
            out.print(
                Text(printable(f"INCOMPLETE: {count.describe()}"), style="bold yellow", overflow="fold")
            )
    dest = default_path(root, "leaderboard")
    bundle_export.write_bundle(bundle, dest, bundle.split(split), named=False)
    out.print(Text(printable(f"bundle: {bundle.count} rows in {dest}"), overflow="fold"))
    if bundle.missing:
        err.print(
            Text(
                printable(
                    f"{len(bundle.missing)} runs have no ARE trace (their rows' data is empty): "
                    + ", ".join(bundle.missing[:3])
                    + (" …" if len(bundle.missing) > 3 else "")
                ),
                style="yellow",
                overflow="fold",
            )
        )
    if hf_upload is not None:
        out.print(Text(printable(f"uploaded: {upload(dest, hf_upload)}"), overflow="fold"))
    return EXIT_OK


def generation_note(root: Path) -> str:
    """The report's footer: the simulated generation time the phases ran with (≤ 80 columns)."""
    modes = sorted(
        {
            str(
                run_settings(
                    (first_run_config(output_root(d)) or {}).get("config") or {}, "run", "sim_generation_time"
                )
                or "not recorded"
            )
            for _, d in phase_dirs(root)
        }
    )
    note = " (ARE 1.2.0's own agent effectively: fixed:0)" if modes == [MEASURED] else ""
    return f"simulated generation time: {', '.join(modes)}{note}"
