"""`images build`, and the build display `demo` reuses when images are missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional, Sequence

import typer
from gaia2_runner.cli.base import err, friendly, images_app, out
from gaia2_runner.config import load_env_file
from gaia2_runner.config.harnesses import Harness, all_harnesses, get_harness
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.images import build_images, default_base_image, ensure_images
from gaia2_runner.sandbox.podman import PodmanBackend
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

BASE_IMAGE_HELP = "Image the runtime base starts FROM (default: $GAIA2_BASE_IMAGE or python:3.12-slim)."


class BuildDisplay:
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


def build_with_display(base_image: Optional[str], ca_bundle: Optional[Path], force: bool, only_missing: bool,
                       backend: PodmanBackend | None = None, harnesses: Sequence[Harness] = (),
                       defaults: bool = True) -> list[str]:
    """Build the images (only the missing or stale ones with `only_missing`), showing progress."""
    display = BuildDisplay()
    with display.progress:
        kwargs: dict[str, Any] = dict(backend=backend, base_image=base_image, ca_bundle=ca_bundle,
                                      log=display.log, on_image=display.on_image, harnesses=harnesses,
                                      defaults=defaults)
        if only_missing:
            return ensure_images(**kwargs)
        return build_images(nocache=force, **kwargs)


@images_app.command("build")
@friendly
def images_build(
    base_image: Optional[str] = typer.Option(None, "--base-image", help=BASE_IMAGE_HELP),
    ca_bundle: Optional[Path] = typer.Option(
        None, "--ca-bundle",
        help="CA bundle pip and npm trust during the build (default: $GAIA2_CA_BUNDLE or the system bundle)."),
    force: bool = typer.Option(False, "--force", help="Rebuild every layer (no build cache)."),
    agents: Optional[List[str]] = typer.Option(
        None, "--agent", help="Build this agent's image (repeatable; `images list` names them) instead of the default set."),
) -> None:
    """Build localhost/gaia2-runtime-base, localhost/gaia2-oracle and localhost/gaia2-agent, or
    with --agent the images of those agents (a CLI harness: its pinned package from npm or PyPI;
    only what is missing or stale, everything with --force)."""
    load_env_file(None, Path.cwd())  # GAIA2_BASE_IMAGE / GAIA2_CA_BUNDLE may come from .env
    chosen = [get_harness(name) for name in agents or []]
    defaults = not chosen or any(h.builtin for h in chosen)
    # An agent's image: only what is missing or stale (the runtime base takes minutes), unless --force.
    built = build_with_display(base_image, ca_bundle, force, only_missing=bool(chosen) and not force,
                               harnesses=chosen, defaults=defaults)
    out.print(Text(f"built: {', '.join(built) or 'nothing (all current)'} (base image {base_image or default_base_image()})"))


@images_app.command("list")
@friendly
def images_list() -> None:
    """The agents `--agent NAME` selects: name, package and pinned version, image, and whether it is built."""
    harnesses = all_harnesses()
    try:
        with PodmanBackend.connect() as backend:
            present = {h.name: backend.image_exists(h.image) for h in harnesses.values()}
    except Gaia2Error:
        present = {}
    table = Table(box=None, pad_edge=False)
    for column in ("agent", "package", "wire", "image", "built"):
        table.add_column(column, overflow="fold")
    for h in harnesses.values():
        package = f"{h.package.partition(':')[2]}@{h.version}" if h.package else "(built in)"
        built = {True: "yes", False: "no"}.get(present.get(h.name), "?")
        table.add_row(h.name, package, h.wire or "-", h.image.removeprefix("localhost/"), built)
    out.print(table)
