"""`python -m gaia2_runner.cli`: the same as the `gaia2-runner` command."""

from gaia2_runner.cli import app

app(prog_name="gaia2-runner")
