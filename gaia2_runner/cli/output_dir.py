"""The `--output-dir` of `view` and `serve`: the option and its check."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.read.run_files import require_run

# Annotated, not a default value: the commands stay callable from Python with a plain Path.
OutputDirOption = Annotated[Path, typer.Option("--output-dir", help="A run's output directory.")]


def existing_output_dir(output_dir: Path) -> Path:
    """The directory as given (~ expanded), or a Gaia2Error naming it when it is not there or
    holds no run (output/read/run_files.require_run)."""
    path = Path(output_dir).expanduser()
    if not path.is_dir():
        raise Gaia2Error(f"output directory {path} does not exist: pass the --output-dir of a run")
    require_run(path)
    return path
