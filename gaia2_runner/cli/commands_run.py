"""run, demo, run-dataset, run-config: four doors to the one run path in launch.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import typer
from gaia2_runner.cli.base import EXIT_NO_VERDICT, EXIT_OK, app, err, friendly, out
from gaia2_runner.cli.images_command import BASE_IMAGE_HELP, build_with_display
from gaia2_runner.cli.launch import build_config, launch
from gaia2_runner.cli.options import settings_named, with_settings
from gaia2_runner.config import ORACLE_IMAGE
from gaia2_runner.config.schema import BY_NAME
from gaia2_runner.engine.dataset_run import DatasetOutcome
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.resources import checkout_candidates
from gaia2_runner.targets import scenario_ref

RETRY_HELP = "Also rerun runs that ended without a verdict (start failure, timeout, crash)."
ENV_FILE_HELP = "dotenv file with API keys (default: .env next to the config or in the current directory)."
DRY_RUN_HELP = ("Check everything, the model endpoints too (one short container, unless --no-preflight), "
                "and print the plan; no scenario starts.")
OVERWRITE_HELP = "Discard results of another setup (image, model, judge, scenarios…) found in the output directory."
TARGET_ONLY = ("dataset", "dataset_root", "splits", "subset", "limit", "revision")


def _exit_code(result: DatasetOutcome | int) -> int:
    return result if isinstance(result, int) else result.exit_code


@app.command()
@friendly
@with_settings(settings_named(exclude=TARGET_ONLY + ("retry", "shard", "hosts")))
def run(
    scenario: str = typer.Option(..., "--scenario", help="Gaia2 scenario JSON file."),
    image: Optional[str] = typer.Option(None, "--image",
                                        help=f"Image to run, e.g. {ORACLE_IMAGE} (default: the --agent's image)."),
    output_dir: str = typer.Option(..., "--output-dir", help="Artifacts go to OUTPUT_DIR/<scenario_id>/."),
    env_file: Optional[str] = typer.Option(None, "--env-file", help=ENV_FILE_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP),
    overwrite: bool = typer.Option(False, "--overwrite", help=OVERWRITE_HELP),
    settings: dict[str, Any] = None,  # type: ignore[assignment] - filled by with_settings
) -> None:
    """Run one scenario in a fresh container and print its verdict.

    The same run path as run-dataset (progress, run_config.json, results.jsonl, report), always
    starting afresh. Exit code 0 when the judge gave a verdict (pass or fail), 1 when there is
    none (error, timeout, crash), 2 for a usage problem.
    """
    if image is None and not settings.get("harness"):
        raise Gaia2Error("run needs --agent NAME or --image IMAGE (e.g. --agent oracle)")
    config = build_config(None, {**settings, "scenario": scenario, "image": image, "output_dir": output_dir},
                          env_file)
    result = launch(config, command="run", out=out, err=err, dry_run=dry_run, fresh=True, overwrite=overwrite,
                    per_scenario=True)
    raise typer.Exit(_exit_code(result))


def examples_dir() -> Path:
    """The bundled demo scenarios: examples/scenarios/ beside the package or in the current dir."""
    candidates = checkout_candidates("examples/scenarios", "GAIA2_EXAMPLES_DIR")
    for path in candidates:
        if path.is_dir() and any(path.glob("*.json")):
            return path
    raise Gaia2Error(f"no demo scenarios in {', '.join(map(str, candidates))}: "
                     "run from a gaia2-runner checkout or set GAIA2_EXAMPLES_DIR")


@app.command()
@friendly
@with_settings(settings_named("run", exclude=("retry", "output_dir", "shard", "hosts", "preflight")))
def demo(
    output_dir: str = typer.Option("demo-results", "--output-dir",
                                    help="Artifacts go to OUTPUT_DIR/<scenario_id>/."),
    base_image: Optional[str] = typer.Option(None, "--base-image", help=BASE_IMAGE_HELP),
    overwrite: bool = typer.Option(False, "--overwrite", help=OVERWRITE_HELP),
    settings: dict[str, Any] = None,  # type: ignore[assignment]
) -> None:
    """Build missing images, then run the oracle on every bundled demo scenario.

    Exit code 0 only when every scenario passed.
    """
    examples = examples_dir()
    config = build_config(None, {**settings, "dataset_root": examples, "image": ORACLE_IMAGE,
                                 "provider": "oracle", "output_dir": output_dir}, None)
    # Without a split, so artifacts land in OUTPUT_DIR/<scenario_id>/ as for `run`.
    refs = [scenario_ref(path, None) for path in sorted(examples.glob("*.json"))]
    result = launch(config, command="demo", out=out, err=err, fresh=True, overwrite=overwrite, per_scenario=True,
                    refs=refs,
                    prepare=lambda backend: build_with_display(base_image, None, False, True, backend))
    if isinstance(result, int):
        raise typer.Exit(result)
    passed = result.records and all(r.get("success") is True for r in result.records)
    raise typer.Exit(result.exit_code if result.interrupted else EXIT_OK if passed else EXIT_NO_VERDICT)


@app.command("run-dataset")
@friendly
@with_settings(settings_named(), help_overrides={"retry": RETRY_HELP})
def run_dataset_cmd(
    env_file: Optional[str] = typer.Option(None, "--env-file", help=ENV_FILE_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP),
    overwrite: bool = typer.Option(False, "--overwrite", help=OVERWRITE_HELP),
    settings: dict[str, Any] = None,  # type: ignore[assignment]
) -> None:
    """Run a scenario, a split or a dataset, N containers at a time, k runs each.

    Rerunning the same command resumes where it stopped. Exit code 0 when every run got a
    verdict, 1 when some ended without one (rerun those with --retry), 2 for a usage problem,
    130 when interrupted (rerun the command to resume).
    """
    config = build_config(None, settings, env_file)
    raise typer.Exit(_exit_code(launch(config, command="run-dataset", out=out, err=err,
                                       retry=bool(settings.get("retry")), dry_run=dry_run, overwrite=overwrite)))


@app.command("run-config")
@friendly
def run_config_cmd(
    config_path: str = typer.Option(..., "--config", help="TOML run configuration."),
    retry: bool = typer.Option(False, "--retry", help=RETRY_HELP),
    env_file: Optional[str] = typer.Option(None, "--env-file", help=ENV_FILE_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP),
    overwrite: bool = typer.Option(False, "--overwrite", help=OVERWRITE_HELP),
    shard: Optional[str] = typer.Option(None, "--shard", help=BY_NAME["shard"].help),
    hosts: Optional[List[str]] = typer.Option(None, "--host", help=BY_NAME["hosts"].help + " Replaces [run] hosts."),
    no_preflight: bool = typer.Option(False, BY_NAME["preflight"].flag, help=BY_NAME["preflight"].help),
) -> None:
    """Run what a TOML config describes; rerunning it resumes where it stopped.

    Exit codes as for run-dataset.
    """
    config = build_config(config_path, {"retry": True if retry else None, "shard": shard, "hosts": hosts,
                                        "preflight": False if no_preflight else None}, env_file)
    raise typer.Exit(_exit_code(launch(config, command="run-config", out=out, err=err, retry=retry,
                                       dry_run=dry_run, overwrite=overwrite)))
