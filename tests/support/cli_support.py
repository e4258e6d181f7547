"""Calling the CLI in-process and checking the one-`error:`-line rule, shared by the CLI tests."""

from typer.testing import CliRunner

from gaia2_runner import cli

runner = CliRunner()


def invoke(args):
    return runner.invoke(cli.app, args)


def assert_one_error_line(result, fragment):
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: ") and fragment in lines[0]
    assert "Traceback" not in result.output
