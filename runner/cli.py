"""`gaia2-runner` command line: a thin layer over the library API.

User mistakes arrive as Gaia2Error and are printed as one red `error:` line (exit code 2); only
real bugs show a traceback.
"""

from __future__ import annotations

import functools
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Callable, List, Optional, TypeVar

import typer
from dotenv import find_dotenv, load_dotenv
from gaia2_runner import __version__
from gaia2_runner.atomic_file import write_json_atomic
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.images import (
    ORACLE_IMAGE,
    build_images,
    default_base_image,
    ensure_images,
)
from gaia2_runner.podman_backend import PodmanBackend
from gaia2_runner.result import ScenarioResult, now_iso
from gaia2_runner.single_run import run_scenario
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

app = typer.Typer(
    name="gaia2-runner",
    help="Evaluate AI agents on Meta's Gaia2 benchmark, one podman container per scenario.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
images_app = typer.Typer(help="Build the runner's container images.", no_args_is_help=True)
app.add_typer(images_app, name="images")

out = Console()
err = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])


def _opt(flag: str, help: str) -> Any:
    return typer.Option(None, flag, help=help, show_default=False)


def _friendly(fn: F) -> F:
    """Turn Gaia2Error into one red line and exit 2; Ctrl-C into exit 130."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Gaia2Error as exc:
            err.print(Text(f"error: {exc.message}", style="red"), soft_wrap=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            err.print(Text("interrupted", style="yellow"))
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        out.print(f"gaia2-runner {__version__}")
        raise typer.Exit()


def _sigterm_as_interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


@app.callback()
def main(
    version: Optional[bool] = typer.Option(
        None, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    """Evaluate AI agents on Meta's Gaia2 benchmark, one podman container per scenario.

    Settings may come from a .env file (see .env.example); the real environment wins.
    """
    load_dotenv(find_dotenv(usecwd=True), override=False)
    # `kill` should clean up containers like Ctrl-C does.
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _sigterm_as_interrupt)


def _parse_env(pairs: List[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise Gaia2Error(f"--env {pair!r} is not KEY=VALUE: write it as --env NAME=value")
        env[key.strip()] = value
    return env


def _fmt_s(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def results_table(results: list[ScenarioResult]) -> Table:
    table = Table(title="gaia2-runner results", show_lines=False)
    for col, kw in [("scenario", {"no_wrap": True}), ("result", {"no_wrap": True}), ("reason", {"overflow": "fold", "max_width": 60}),
                    ("actions", {"justify": "right"}), ("ready s", {"justify": "right"}),
                    ("run s", {"justify": "right"}), ("collect s", {"justify": "right"})]:
        table.add_column(col, **kw)
    for r in results:
        verdict = {True: "[green]PASS[/]", False: "[red]FAIL[/]"}.get(r.success, "[yellow]ERROR[/]")
        reason = r.reason() if r.success is not True else ""
        if r.success is None and r.status not in ("error",):
            reason = f"{r.status}: {reason}" if reason else r.status
        table.add_row(r.scenario_id, verdict, Text(reason), str(r.agent_actions),
                      _fmt_s(r.timings.ready_s), _fmt_s(r.timings.run_s), _fmt_s(r.timings.collect_s))
    return table


def _progress(msg: str) -> None:
    err.print(Text(msg, style="yellow" if msg.startswith("warning") else "dim"), soft_wrap=True)


@app.command()
@_friendly
def run(
    scenario: Path = typer.Option(..., "--scenario", help="Gaia2 scenario JSON file."),
    image: str = typer.Option(..., "--image", help=f"Image to run, e.g. {ORACLE_IMAGE}."),
    output_dir: Path = typer.Option(..., "--output-dir",
                                    help="Artifacts go to OUTPUT_DIR/<scenario_id>/."),
    timeout: Optional[float] = typer.Option(
        None, "--timeout", help="Seconds the scenario may run (default: its duration + 120, or 600)."),
    health_timeout: float = typer.Option(60.0, "--health-timeout",
                                         help="Seconds to wait for the container's /health."),
    runtime: Optional[str] = typer.Option(None, "--runtime",
                                          help="GAIA2_RUNTIME for the container (oracle, agent, ...)."),
    env: List[str] = typer.Option([], "--env", help="Extra container variable KEY=VALUE (repeatable)."),
    provider: Optional[str] = _opt("--provider", "Agent provider (oracle, openai, openai-compat, anthropic, gemini, openrouter)."),
    model: Optional[str] = _opt("--model", "Agent model."),
    api_key: Optional[str] = _opt("--api-key", "Agent API key (prefer --api-key-env and a .env file)."),
    api_key_env: Optional[str] = _opt("--api-key-env", "Variable holding the agent API key."),
    base_url: Optional[str] = _opt("--base-url", "Agent API base URL, forwarded unchanged."),
    judge_provider: Optional[str] = _opt("--judge-provider", "Judge provider for ARE's LLM soft checks."),
    judge_model: Optional[str] = _opt("--judge-model", "Judge model."),
    judge_base_url: Optional[str] = _opt("--judge-base-url", "Judge API base URL."),
    judge_api_key: Optional[str] = _opt("--judge-api-key", "Judge API key (never written to disk)."),
    judge_api_key_env: Optional[str] = _opt("--judge-api-key-env", "Variable holding the judge API key."),
) -> None:
    """Run one scenario in a fresh container and print its verdict.

    Exit code 0 when the judge gave a verdict (pass or fail), 1 when there is none
    (error, timeout, crash), 2 for a usage problem.
    """
    settings = {k: v for k, v in locals().items() if k in AGENT_FLAGS}
    extra_env = _agent_env(scenario, output_dir, settings) if any(settings.values()) else {}
    extra_env.update(_parse_env(env))
    result = run_scenario(scenario, image, output_dir, timeout=timeout, health_timeout=health_timeout,
                          runtime=runtime, extra_env=extra_env, progress=_progress)
    write_json_atomic(output_dir / "run_config.json", {
        "runner_version": __version__, "command": "run", "scenario": str(scenario), "image": image,
        "timeout": timeout, "health_timeout": health_timeout, "runtime": result.runtime,
        # Values of --env and every key stay out: only names and non-secret settings are recorded.
        "env_names": sorted(_parse_env(env)),
        **{k: v for k, v in settings.items() if v is not None and "api_key" not in k},
        "api_keys_given": sorted(k for k, v in settings.items() if v and "api_key" in k),
    })
    _refresh_viewer(output_dir)
    out.print(results_table([result]))
    out.print(f"artifacts: {result.output_dir} (open {output_dir / 'index.html'})")
    raise typer.Exit(0 if result.success is not None else 1)


def _refresh_viewer(output_dir: Path) -> None:
    """index.html and trace.html next to the results; a viewer problem never fails a run."""
    try:
        from gaia2_runner.viewer import regenerate_index

        regenerate_index(output_dir)
    except Exception as exc:  # noqa: BLE001
        err.print(Text(f"warning: viewer not written: {exc}", style="yellow"))


AGENT_FLAGS = ("provider", "model", "api_key", "api_key_env", "base_url", "judge_provider", "judge_model",
               "judge_base_url", "judge_api_key", "judge_api_key_env")


def _agent_env(scenario: Path, output_dir: Path, settings: dict[str, Any]) -> dict[str, str]:
    """Agent/judge flags -> container variables, with the same key checks as run-dataset."""
    import os

    from gaia2_runner.config import (
        apply_overrides,
        container_env,
        load_config,
        load_env_file,
    )

    load_env_file(None, Path.cwd())
    config = apply_overrides(load_config(None), {"scenario": scenario, "output_dir": output_dir, **settings})
    return container_env(config, os.environ)


class _BuildDisplay:
    """Spinner with elapsed time per image, build log lines scrolling above it."""

    def __init__(self) -> None:
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"),
                                 TimeElapsedColumn(), console=err, transient=False)
        self.tasks: dict[str, Any] = {}

    def on_image(self, tag: str, phase: str) -> None:
        if phase == "start":
            self.tasks[tag] = self.progress.add_task(f"building {tag}", total=None)
        else:
            label = "[green]built[/]" if phase == "done" else "[red]failed[/]"
            self.progress.update(self.tasks[tag], description=f"{label} {tag}", total=1, completed=1)

    def log(self, line: str) -> None:
        self.progress.console.print(Text(line, style="dim"), soft_wrap=True)


def _build(base_image: Optional[str], ca_bundle: Optional[Path], force: bool, only_missing: bool,
           backend: PodmanBackend | None = None) -> list[str]:
    display = _BuildDisplay()
    with display.progress:
        kwargs = dict(backend=backend, base_image=base_image, ca_bundle=ca_bundle,
                      log=display.log, on_image=display.on_image)
        if only_missing:
            return ensure_images(**kwargs)
        return build_images(nocache=force, **kwargs)


BASE_IMAGE_HELP = "Image the runtime base starts FROM (default: $GAIA2_BASE_IMAGE or python:3.12-slim)."
RETRY_HELP = "Also rerun runs that ended without a verdict (start failure, timeout, crash)."
ENV_FILE_HELP = "dotenv file with API keys (default: .env next to the config or in the current directory)."
DRY_RUN_HELP = "Check everything and print the plan without starting a container."


@images_app.command("build")
@_friendly
def images_build(
    base_image: Optional[str] = typer.Option(None, "--base-image", help=BASE_IMAGE_HELP),
    ca_bundle: Optional[Path] = typer.Option(
        None, "--ca-bundle",
        help="CA bundle pip trusts during the build (default: $GAIA2_CA_BUNDLE or the system bundle)."),
    force: bool = typer.Option(False, "--force", help="Rebuild every layer (no build cache)."),
) -> None:
    """Build localhost/gaia2-runtime-base and localhost/gaia2-oracle from containers/."""
    built = _build(base_image, ca_bundle, force, only_missing=False)
    out.print(f"built: {', '.join(built)} (base image {base_image or default_base_image()})")


def _examples_dir() -> Path:
    here = Path(__file__).resolve().parent.parent / "examples" / "scenarios"
    return here if here.is_dir() else Path.cwd() / "examples" / "scenarios"


@app.command()
@_friendly
def demo(
    output_dir: Path = typer.Option(Path("demo-results"), "--output-dir",
                                    help="Artifacts go to OUTPUT_DIR/<scenario_id>/."),
    base_image: Optional[str] = typer.Option(None, "--base-image", help=BASE_IMAGE_HELP),
) -> None:
    """Build missing images, then run the oracle on every examples/scenarios/*.json.

    Exit code 0 only when every scenario passed.
    """
    scenarios = sorted(_examples_dir().glob("*.json"))
    if not scenarios:
        raise Gaia2Error(f"no scenarios in {_examples_dir()}: run from a gaia2-runner checkout")
    with PodmanBackend.connect() as backend:
        _build(base_image, None, False, only_missing=True, backend=backend)
        results: list[ScenarioResult] = []
        for path in scenarios:
            try:
                results.append(run_scenario(path, ORACLE_IMAGE, output_dir, backend=backend,
                                            progress=_progress))
            except Gaia2Error as exc:
                results.append(ScenarioResult(scenario_id=path.stem, status="error", error=exc.message,
                                              image=ORACLE_IMAGE, finished_at=now_iso()))
    _refresh_viewer(output_dir)
    out.print(results_table(results))
    out.print(f"artifacts: {output_dir} (open {output_dir / 'index.html'})")
    raise typer.Exit(0 if all(r.success is True for r in results) else 1)


@app.command("run-dataset")
@_friendly
def run_dataset_cmd(
    scenario: Optional[Path] = _opt("--scenario", "One scenario JSON file."),
    dataset: Optional[str] = _opt("--dataset", "HuggingFace dataset id, or a local directory of scenarios."),
    dataset_root: Optional[Path] = _opt("--dataset-root", "Local directory with one subdirectory per split."),
    splits: Optional[str] = _opt("--splits", "Comma-separated splits, or `all`."),
    subset: Optional[Path] = _opt("--subset", "Manifest limiting the scenarios to run."),
    limit: Optional[int] = _opt("--limit", "Run at most this many scenarios per split."),
    revision: Optional[str] = _opt("--revision", "Hugging Face dataset revision."),
    image: Optional[str] = _opt("--image", f"Image to evaluate, e.g. {ORACLE_IMAGE}."),
    provider: Optional[str] = _opt("--provider", "Agent LLM provider."),
    model: Optional[str] = _opt("--model", "Agent model."),
    api_key: Optional[str] = _opt("--api-key", "Agent API key (prefer --api-key-env and a .env file)."),
    api_key_env: Optional[str] = _opt("--api-key-env", "Variable holding the agent API key."),
    base_url: Optional[str] = _opt("--base-url", "Agent API base URL, forwarded unchanged."),
    agent_options: Optional[List[str]] = _opt("--agent-option", "Extra agent option KEY=VALUE (repeatable)."),
    judge_provider: Optional[str] = _opt("--judge-provider", "Judge LLM provider."),
    judge_model: Optional[str] = _opt("--judge-model", "Judge model."),
    judge_base_url: Optional[str] = _opt("--judge-base-url", "Judge API base URL."),
    judge_api_key: Optional[str] = _opt("--judge-api-key", "Judge API key (never written to disk)."),
    judge_api_key_env: Optional[str] = _opt("--judge-api-key-env", "Variable holding the judge API key."),
    timeout: Optional[float] = _opt("--timeout", "Seconds per scenario (default: its duration + 120)."),
    health_timeout: Optional[float] = _opt("--health-timeout", "Seconds to wait for /health."),
    concurrency: Optional[int] = _opt("--concurrency", "Containers running at once."),
    pass_at: Optional[int] = _opt("--pass-at", "Runs per scenario (k of pass@k), in run_1/ … run_k/."),
    output_dir: Optional[Path] = _opt("--output-dir", "Where results go."),
    log_level: Optional[str] = _opt("--log-level", "INFO, or DEBUG to log every scenario."),
    retry: bool = typer.Option(False, "--retry", help=RETRY_HELP),
    env_file: Optional[Path] = typer.Option(None, "--env-file", help=ENV_FILE_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP),
) -> None:
    """Run a scenario, a split or a dataset, N containers at a time, k runs each.

    Exit code 0 when every run got a verdict, 1 when some ended without one (rerun those with
    --retry), 2 for a usage problem, 130 when interrupted (rerun the command to resume).
    """
    from gaia2_runner.dataset_cli import (  # lazy: pulls in the dataset stack
        build_config,
        launch,
    )

    settings = dict(locals())
    for name in ("env_file", "dry_run", "retry"):
        settings.pop(name)
    settings.pop("build_config")
    settings.pop("launch")
    settings["retry"] = True if retry else None
    config = build_config(None, settings, env_file)
    raise typer.Exit(launch(config, retry=retry, dry_run=dry_run, out=out, err=err))


@app.command("run-config")
@_friendly
def run_config_cmd(
    config_path: Path = typer.Option(..., "--config", help="TOML run configuration."),
    retry: bool = typer.Option(False, "--retry", help=RETRY_HELP),
    env_file: Optional[Path] = typer.Option(None, "--env-file", help=ENV_FILE_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP),
) -> None:
    """Run what a TOML config describes; rerunning it resumes where it stopped.

    Exit codes as for run-dataset.
    """
    from gaia2_runner.dataset_cli import (  # lazy: pulls in the dataset stack
        build_config,
        launch,
    )

    config = build_config(config_path, {"retry": True if retry else None}, env_file)
    raise typer.Exit(launch(config, retry=retry, dry_run=dry_run, out=out, err=err))


@app.command("view")
@_friendly
def view_cmd(
    output_dir: Path = typer.Option(..., "--output-dir", help="A run's output directory."),
) -> None:
    """Write index.html and one trace.html per scenario (static; opens from disk, no network)."""
    from gaia2_runner.viewer_cli import view_command

    raise typer.Exit(view_command(output_dir))


@app.command("serve")
@_friendly
def serve_cmd(
    output_dir: Path = typer.Option(..., "--output-dir", help="A run's output directory."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default: loopback only)."),
    port: int = typer.Option(0, "--port", help="Port (0: a free one; the URL is printed)."),
) -> None:
    """Serve the viewer live: pages regenerate as results land and open pages update themselves."""
    from gaia2_runner.viewer_cli import serve_command

    raise typer.Exit(serve_command(output_dir, host, port))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
