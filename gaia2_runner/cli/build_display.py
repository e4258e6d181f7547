"""Image builds with a live display: what `images build` shows, and `demo` when images are missing."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.text import Text

from gaia2_runner.cli.console import err
from gaia2_runner.config.defaults import DEFAULT_BASE_IMAGE
from gaia2_runner.config.harnesses import Harness
from gaia2_runner.sandbox.images import build_images, ensure_images
from gaia2_runner.sandbox.sandbox import Sandbox

BASE_IMAGE_HELP = f"Image the runtime base starts FROM (default: $GAIA2_BASE_IMAGE or {DEFAULT_BASE_IMAGE})."


class BuildDisplay:
    """Spinner with elapsed time per image, build log lines scrolling above it."""

    def __init__(self) -> None:
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=err,
            transient=False,
        )
        self.tasks: dict[str, Any] = {}

    def on_image(self, tag: str, phase: str) -> None:
        if phase == "start":
            self.tasks[tag] = self.progress.add_task(f"building {tag}", total=None)
        else:
            label = "[green]built[/]" if phase == "done" else "[red]failed[/]"
            self.progress.update(self.tasks[tag], description=f"{label} {tag}", total=1, completed=1)

    def log(self, line: str) -> None:
        self.progress.console.print(Text(line, style="dim"), soft_wrap=True)


def build_with_display(
    base_image: str | None,
    ca_bundle: Path | None,
    force: bool,
    only_missing: bool,
    sandbox: Sandbox | None = None,
    harnesses: Sequence[Harness] = (),
    defaults: bool = True,
) -> list[str]:
    """Build the images (only the missing or stale ones with `only_missing`), showing progress."""
    display = BuildDisplay()
    with display.progress:
        kwargs: dict[str, Any] = dict(
            sandbox=sandbox,
            base_image=base_image,
            ca_bundle=ca_bundle,
            log=display.log,
            on_image=display.on_image,
            harnesses=harnesses,
            defaults=defaults,
        )
        if only_missing:
            return ensure_images(**kwargs)
        return build_images(nocache=force, **kwargs)
