"""`images build`, and the build display `demo` reuses when images are missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from gaia2_runner.cli.base import err, friendly, images_app, out
from gaia2_runner.config import load_env_file
from gaia2_runner.sandbox.images import build_images, default_base_image, ensure_images
from gaia2_runner.sandbox.podman import PodmanBackend
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
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
                       backend: PodmanBackend | None = None) -> list[str]:
    """Build the images (only the missing or stale ones with `only_missing`), showing progress."""
    display = BuildDisplay()
    with display.progress:
        kwargs: dict[str, Any] = dict(backend=backend, base_image=base_image, ca_bundle=ca_bundle,
                                      log=display.log, on_image=display.on_image)
        if only_missing:
            return ensure_images(**kwargs)
        return build_images(nocache=force, **kwargs)


@images_app.command("build")
@friendly
def images_build(
    base_image: Optional[str] = typer.Option(None, "--base-image", help=BASE_IMAGE_HELP),
    ca_bundle: Optional[Path] = typer.Option(
        None, "--ca-bundle",
        help="CA bundle pip trusts during the build (default: $GAIA2_CA_BUNDLE or the system bundle)."),
    force: bool = typer.Option(False, "--force", help="Rebuild every layer (no build cache)."),
) -> None:
    """Build localhost/gaia2-runtime-base, localhost/gaia2-oracle and localhost/gaia2-agent."""
    load_env_file(None, Path.cwd())  # GAIA2_BASE_IMAGE / GAIA2_CA_BUNDLE may come from .env
    built = build_with_display(base_image, ca_bundle, force, only_missing=False)
    out.print(Text(f"built: {', '.join(built)} (base image {base_image or default_base_image()})"))
