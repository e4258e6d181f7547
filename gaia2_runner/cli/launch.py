"""From settings to a finished run: the one path behind run, demo, run-dataset and run-config.

Order matters: .env is loaded, the config is built and every check that needs no container engine runs
(targets, scenario files, API keys), then the engine is reached, the image checked and the model
endpoints tried from one short container (execution/preflight.py), and only then does a scenario
start. A dry run stops after the checks, endpoints included, and prints the plan.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from gaia2_runner.cli.display import errors_table, results_table
from gaia2_runner.cli.errors import print_error
from gaia2_runner.cli.plan_view import describe_plan
from gaia2_runner.cli.progress import DatasetProgress
from gaia2_runner.cli.report_view import render_summary
from gaia2_runner.config import RunConfig, apply_overrides, load_config, load_env_file
from gaia2_runner.config.schema import BY_NAME
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.dataset_run import DatasetOutcome, run_plan
from gaia2_runner.execution.hosts import connect_first
from gaia2_runner.execution.job_limits import CONFIGURATION_FAULT
from gaia2_runner.execution.observer import Observers
from gaia2_runner.execution.plan import RunPlan, check_image, compare_fingerprint, plan_run
from gaia2_runner.execution.preflight import PreflightReport, check_endpoints
from gaia2_runner.execution.scenario_run import env_secrets
from gaia2_runner.exit_codes import EXIT_OK
from gaia2_runner.inputs import check_path_text
from gaia2_runner.output.layout import INDEX_FILE, RESULTS_LOG_FILE, RUNNER_LOG_FILE, SUMMARY_FILE
from gaia2_runner.output.runner_log import RESULTS_SEPARATOR, RunnerLog, summary_line
from gaia2_runner.output.scrub import Scrubber
from gaia2_runner.resources import checkout_candidates
from gaia2_runner.sandbox.engine_select import describe_engine
from gaia2_runner.sandbox.leftovers import Leftover
from gaia2_runner.sandbox.sandbox import Sandbox
from gaia2_runner.targets import ScenarioRef
from gaia2_runner.text import printable
from gaia2_runner.viewer.refresh import IndexRefresher

# Options the four doors share, with one help text each.
RETRY_HELP = BY_NAME["retry"].help  # the setting's own text: what execution/jobs.select reruns
ENV_FILE_HELP = "dotenv file with API keys (default: .env next to the config or in the current directory)."
DRY_RUN_HELP = (
    "Check everything, the model endpoints too (one short container, unless --no-preflight), "
    "and print the plan; no scenario starts."
)
OVERWRITE_HELP = (
    "Discard results of another setup (image, model, judge, scenarios…) found in the output directory."
)


def exit_code(result: DatasetOutcome | int) -> int:
    """What `launch` returned as the command's exit code (0 after a dry run)."""
    return result if isinstance(result, int) else result.exit_code


def examples_dir() -> Path:
    """The bundled demo scenarios: examples/scenarios/ beside the package or in the current dir."""
    candidates = checkout_candidates("examples/scenarios", "GAIA2_EXAMPLES_DIR")
    for path in candidates:
        if path.is_dir() and any(path.glob("*.json")):
            return path
    raise Gaia2Error(
        f"no demo scenarios in {', '.join(map(str, candidates))}: "
        "run from a gaia2-runner checkout or set GAIA2_EXAMPLES_DIR"
    )


def build_config(
    config_path: str | Path | None,
    overrides: dict[str, Any],
    env_file: str | Path | None,
    flag: str = "--config",
) -> RunConfig:
    """Load .env (the real environment wins), then the TOML (if any) with flags on top; `flag`: the
    option that named the TOML (for its errors)."""
    if config_path is not None:
        check_path_text(str(config_path), flag)  # before the filesystem sees it
    base = Path(config_path).parent if config_path is not None else Path.cwd()
    load_env_file(None if env_file is None else Path(env_file), base)  # first: the TOML may use its variables
    return apply_overrides(load_config(config_path), overrides)


def launch(
    config: RunConfig,
    *,
    command: str,
    out: Console,
    err: Console,
    retry: bool = False,
    dry_run: bool = False,
    fresh: bool = False,
    overwrite: bool = False,
    per_scenario: bool = False,
    prepare: Callable[[Sandbox], object] | None = None,
    refs: list[ScenarioRef] | None = None,
) -> DatasetOutcome | int:
    """Check, then run (or print the plan). Returns the outcome, or 0 after a dry run.

    `fresh` reruns every scenario (run, demo) instead of resuming; `prepare` runs once the engine is
    reachable (demo builds missing images there); `refs` replaces resolving the target."""
    plan = plan_run(config, retry=retry, command=command, fresh=fresh, overwrite=overwrite, refs=refs)
    with connect_first(config) as sandbox:
        if prepare is not None:
            prepare(sandbox)
        check_image(plan, sandbox)
        if dry_run:
            show_dry_run(config, plan, sandbox, out, overwrite=overwrite)
            return EXIT_OK
        show_swept(sandbox.sweep_orphans(), err)
        verbose = str(config.run.log_level or "INFO").upper() == "DEBUG"
        log = RunnerLog(plan.state_dir, command, Scrubber([*plan.secrets, *env_secrets(plan.env)]))
        with DatasetProgress(err, verbose, per_scenario) as display:
            # Shards running at once never share a file: the root index waits for `aggregate`.
            live_index = [] if plan.shard else [IndexRefresher(plan.output_dir)]
            observer = Observers([display, log, *live_index])
            outcome = run_plan(plan, sandbox=sandbox, observer=observer)
    show_outcome(outcome, out, per_scenario, index=plan.shard is None)
    if (
        outcome.stopped and outcome.stopped.get("kind") == CONFIGURATION_FAULT
    ):  # the last word, as for bad input
        print_error(f"{outcome.stopped['reason']}: fix the configuration, then rerun with --retry")
    if plan.shard:
        out.print(
            Text(
                printable(
                    f"shard {plan.shard[0]}/{plan.shard[1]} done; once every shard is: "
                    f"gaia2-runner aggregate {plan.output_dir}"
                )
            )
        )
    return outcome


def show_dry_run(
    config: RunConfig, plan: RunPlan, sandbox: Sandbox, out: Console, *, overwrite: bool
) -> None:
    """What --dry-run prints: the plan, what becomes of the output directory, how many runs would
    start, and the endpoint check. Removes nothing, not even dead runners' containers."""
    out.print(describe_plan(config, plan.refs, engine=describe_engine(sandbox.info(), sandbox.reason)))
    check = compare_fingerprint(plan, sandbox)
    verdict = (
        " (refused: use a new --output-dir, or --overwrite)"
        if check.refused and not overwrite
        else " (--overwrite: they would be discarded)"
        if check.refused
        else ""
    )
    out.print(Text(f"output directory: {check.describe()}{verdict}"))
    selection, total = plan.selection(), len(plan.refs) * plan.pass_at
    out.print(
        f"{len(selection.todo)} of {total} runs would start ({len(selection.done)} already have a result)"
    )
    sandbox.sweep = False
    show_preflight(check_endpoints(plan, sandbox), out)


def show_preflight(report: PreflightReport, out: Console) -> None:
    """What the endpoint check found (a dry run; a real run shows only its warnings)."""
    if report.skipped:
        out.print(Text(printable(f"preflight: skipped, {report.skipped}")))
    for line in report.checked:
        out.print(Text(printable(f"preflight: {line}")))
    for line in report.warnings:
        out.print(Text(printable(f"warning: {line}"), style="yellow"), soft_wrap=True)


def show_swept(removed: list[Leftover], err: Console) -> None:
    """Say which containers of dead runners this invocation removed before starting its own."""
    if removed:
        names = ", ".join(item.name for item in removed[:5]) + (", …" if len(removed) > 5 else "")
        err.print(f"[dim]removed {len(removed)} container(s) left by runners that are gone: {names}[/]")


def show_outcome(
    outcome: DatasetOutcome, out: Console, per_scenario: bool = False, index: bool = True
) -> None:
    """The tables, where the files are, then the whole run in one line (the last thing printed)."""
    if per_scenario:
        out.print(results_table(outcome.records, out.width))
    out.print(render_summary(outcome.summary, noise=outcome.noise))
    table = errors_table(outcome.records)
    if table is not None and not per_scenario:
        out.print(table)
    root = outcome.output_dir
    if outcome.run_dirs == [root]:
        files = f"{SUMMARY_FILE}, {RESULTS_LOG_FILE}, {RUNNER_LOG_FILE}"
    else:
        runs = ", ".join(d.name for d in outcome.run_dirs)
        files = f"{SUMMARY_FILE}, {RUNNER_LOG_FILE}; {RESULTS_LOG_FILE} in {runs}"
    opening = f"; open {root / INDEX_FILE}" if index else ""
    out.print(Text(printable(f"{root}: {files}{opening}")))
    if outcome.interrupted:
        out.print("[yellow]interrupted: rerun the same command to finish the remaining scenarios[/]")
    style = "green" if outcome.summary.complete and not outcome.interrupted else "yellow"
    # runner.log keeps it as one line; here the results' path goes on a line of its own, and
    # whatever is still wider than the terminal wraps (a long path folds), so no line passes 80.
    head, _, where = summary_line(outcome).rpartition(RESULTS_SEPARATOR)
    out.print(Text(printable(head), style=f"bold {style}"))
    out.print(Text(printable(RESULTS_SEPARATOR.lstrip(" ·") + where), style=f"bold {style}", overflow="fold"))
