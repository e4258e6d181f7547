"""`images build` and `images list`: the runner's container images."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.text import Text

from gaia2_runner.cli.build_display import BASE_IMAGE_HELP, build_with_display
from gaia2_runner.cli.console import out
from gaia2_runner.cli.display import add_fixed, add_name, compact_table, name_cell
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.options import EngineOption
from gaia2_runner.config import load_env_file
from gaia2_runner.config.harnesses import all_harnesses, get_harness
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.engine_select import requested_engine
from gaia2_runner.sandbox.images import default_base_image
from gaia2_runner.sandbox.sandbox import Sandbox

MAX_PACKAGE_WIDTH = 50


@friendly
def build_cmd(
    base_image: str | None = typer.Option(None, "--base-image", help=BASE_IMAGE_HELP),
    ca_bundle: Path | None = typer.Option(
        None,
        "--ca-bundle",
        help="CA bundle pip and npm trust during the build (default: $GAIA2_CA_BUNDLE or the system bundle).",
    ),
    force: bool = typer.Option(False, "--force", help="Rebuild every layer (no build cache)."),
    agents: list[str] | None = typer.Option(
        None,
        "--agent",
        help="Build this agent's image (repeatable; `images list` names them) instead of the default set.",
    ),
    engine: EngineOption = None,
) -> None:
    """Build localhost/gaia2-runtime-base, localhost/gaia2-oracle and localhost/gaia2-agent, or
    with --agent the images of those agents (a CLI harness: its pinned package from npm or PyPI;
    only what is missing or stale, everything with --force)."""
    load_env_file(None, Path.cwd())  # GAIA2_BASE_IMAGE / GAIA2_CA_BUNDLE may come from .env
    chosen = [get_harness(name) for name in agents or []]
    defaults = not chosen or any(h.builtin for h in chosen)
    # An agent's image: only what is missing or stale (the runtime base takes minutes), unless --force.
    with Sandbox.connect(engine=engine) as sandbox:
        built = build_with_display(
            base_image,
            ca_bundle,
            force,
            only_missing=bool(chosen) and not force,
            sandbox=sandbox,
            harnesses=chosen,
            defaults=defaults,
        )
    out.print(
        Text(
            f"built: {', '.join(built) or 'nothing (all current)'} (base image {base_image or default_base_image()}"
            f", {sandbox.engine})"
        )
    )


@friendly
def list_cmd(engine: EngineOption = None) -> None:
    """The agents `--agent NAME` selects: name, package and pinned version, image, and whether it is built."""
    harnesses = all_harnesses()
    requested_engine(engine)  # a bad --engine or GAIA2_ENGINE is an error, not "no engine answered"
    try:
        with Sandbox.connect(engine=engine) as sandbox:
            present = {h.name: sandbox.image_exists(h.image) for h in harnesses.values()}
    except Gaia2Error:
        present = {}
    # Three columns, the package and its image stacked in one: whole names at 80 columns.
    table = compact_table()
    add_fixed(table, "agent", "left")
    add_name(table, "package (pinned) · wire · image", max_width=MAX_PACKAGE_WIDTH)
    add_fixed(table, "built", "left")
    for h in harnesses.values():
        package = f"{h.package.partition(':')[2]}@{h.version}" if h.package else "(built in)"
        exists = present.get(h.name)
        built = "?" if exists is None else "yes" if exists else "no"
        cell = name_cell(package)
        cell.append(f"\n{h.wire or '-'} · {h.image.removeprefix('localhost/')}", style="dim")
        table.add_row(h.name, cell, built)
    out.print(table)
    if not present:
        out.print(Text("built: ? (no engine answered)", style="dim"))
