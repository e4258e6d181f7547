"""`demo`: build missing images, then the oracle on every bundled demo scenario."""

from __future__ import annotations

from typing import Any

import typer

from gaia2_runner.cli.build_display import BASE_IMAGE_HELP, build_with_display
from gaia2_runner.cli.console import err, out
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.launch import OVERWRITE_HELP, build_config, examples_dir, launch
from gaia2_runner.cli.options import settings_named, with_settings
from gaia2_runner.config import ORACLE_IMAGE
from gaia2_runner.exit_codes import EXIT_NO_VERDICT, EXIT_OK
from gaia2_runner.targets import scenario_ref


@friendly
@with_settings(settings_named("run", exclude=("retry", "output_dir", "shard", "hosts", "preflight")))
def demo_cmd(
    output_dir: str = typer.Option(
        "demo-results", "--output-dir", help="Artifacts go to OUTPUT_DIR/<scenario_id>/."
    ),
    base_image: str | None = typer.Option(None, "--base-image", help=BASE_IMAGE_HELP),
    overwrite: bool = typer.Option(False, "--overwrite", help=OVERWRITE_HELP),
    settings: dict[str, Any] = None,  # type: ignore[assignment]
) -> None:
    """Build missing images, then run the oracle on every bundled demo scenario.

    Exit code 0 only when every scenario passed.
    """
    examples = examples_dir()
    config = build_config(
        None,
        {
            **settings,
            "dataset_root": examples,
            "image": ORACLE_IMAGE,
            "provider": "oracle",
            "output_dir": output_dir,
        },
        None,
    )
    # Without a split, so artifacts land in OUTPUT_DIR/<scenario_id>/ as for `run`.
    refs = [scenario_ref(path, None) for path in sorted(examples.glob("*.json"))]
    result = launch(
        config,
        command="demo",
        out=out,
        err=err,
        fresh=True,
        overwrite=overwrite,
        per_scenario=True,
        refs=refs,
        prepare=lambda sandbox: build_with_display(base_image, None, False, True, sandbox),
    )
    if isinstance(result, int):
        raise typer.Exit(result)
    passed = result.records and all(r.get("success") is True for r in result.records)
    raise typer.Exit(result.exit_code if result.interrupted else EXIT_OK if passed else EXIT_NO_VERDICT)
