"""`check-image IMAGE`: the container contract, point by point, for an image of one's own."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table
from rich.text import Text

from gaia2_runner.cli.console import err, out
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.launch import examples_dir
from gaia2_runner.cli.options import EngineOption
from gaia2_runner.config.defaults import CHECK_IMAGE_TIMEOUT_S, DEFAULT_HEALTH_TIMEOUT_S
from gaia2_runner.config.load import parse_env
from gaia2_runner.execution.image_check import check_image
from gaia2_runner.exit_codes import EXIT_NO_VERDICT, EXIT_OK
from gaia2_runner.sandbox.sandbox import Sandbox

DEFAULT_SCENARIO = "demo_calendar_add_event.json"
MARKS = {True: "[green]ok[/]", False: "[red]NO[/]", None: "[yellow]--[/]"}


@friendly
def check_image_cmd(
    image: str = typer.Argument(..., help="Image to check, e.g. localhost/my-agent:dev."),
    scenario: Path | None = typer.Option(
        None, "--scenario", help=f"Scenario to run (default: the demo {DEFAULT_SCENARIO})."
    ),
    env: list[str] | None = typer.Option(
        None,
        "--env",
        help="Container variable KEY=VALUE (repeatable), e.g. GAIA2_AGENT_PROVIDER=… for an agent image.",
    ),
    timeout: float = typer.Option(
        CHECK_IMAGE_TIMEOUT_S, "--timeout", help="Seconds to wait for a final status."
    ),
    health_timeout: float = typer.Option(
        DEFAULT_HEALTH_TIMEOUT_S, "--health-timeout", help="Seconds to wait for /health."
    ),
    engine: EngineOption = None,
) -> None:
    """Run IMAGE on one scenario as a run would and report which points of the container contract
    (docs/reference/container-contract.md) it honours. Exit code 0 when every point holds."""
    path = scenario or examples_dir() / DEFAULT_SCENARIO
    with Sandbox.connect(engine=engine) as sandbox:
        points = check_image(
            image,
            path,
            sandbox,
            parse_env(env or []),
            timeout,
            health_timeout,
            progress=lambda message: err.print(Text(message, style="dim")),
        )
    table = Table(box=None, pad_edge=False)
    table.add_column("", width=2)
    table.add_column("contract point", overflow="fold")
    table.add_column("found", overflow="fold", max_width=36)
    for point in points:
        table.add_row(MARKS[point.ok], point.name, point.detail)
    out.print(table)
    failed = sum(1 for p in points if p.ok is not True)
    out.print(Text(f"{image}: {len(points) - failed}/{len(points)} points hold", style="bold"))
    raise typer.Exit(EXIT_OK if not failed else EXIT_NO_VERDICT)
