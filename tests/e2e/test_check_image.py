"""`check-image`: the contract points, on an image that honours them and on one that does not."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaia2_runner.cli import app
from gaia2_runner.execution.image_check import check_image
from gaia2_runner.sandbox.images import RUNTIME_BASE_IMAGE, ImageSpec, build_image

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

BAD_IMAGE = "localhost/gaia2-test-not-a-daemon:latest"
DEMO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_calendar_add_event.json"


@pytest.mark.both_engines
def test_the_oracle_image_honours_every_point(sandbox, images):
    points = check_image("localhost/gaia2-oracle:latest", DEMO, sandbox)
    assert [p for p in points if p.ok is not True] == []
    names = " | ".join(p.name for p in points)
    for point in (
        "GET /health turns ok",
        "refuse a missing or wrong token",
        "reaches a final status",
        "carries a verdict",
        "token is in no output file",
        "is root's alone",
    ):
        assert point in names
    result = CliRunner().invoke(app, ["check-image", "localhost/gaia2-oracle:latest"])
    assert result.exit_code == 0, result.output
    assert f"{len(points)}/{len(points)} points hold" in result.output


def test_an_image_without_the_daemon_fails_its_points(sandbox, images, tmp_path):
    """A plain web server on the adapter port: /health never turns ok; what could not be checked says so."""
    (tmp_path / "Containerfile").write_text(
        f'FROM {RUNTIME_BASE_IMAGE}\nENTRYPOINT ["python3", "-m", "http.server", "8090"]\n'
    )
    build_image(sandbox, ImageSpec(BAD_IMAGE, "Containerfile", {}), tmp_path)
    result = CliRunner().invoke(app, ["check-image", BAD_IMAGE, "--health-timeout", "8"])
    assert result.exit_code == 1, result.output
    assert "0/3 points hold" in result.output
    assert "health timeout after 8s (/health answered 404)" in " ".join(result.output.split())
    assert "not checked: the adapter never became healthy" in " ".join(result.output.split())


def test_a_missing_image_is_one_error_line():
    result = CliRunner().invoke(app, ["check-image", "localhost/no-such-image:never"])
    assert result.exit_code == 2
    assert (
        result.output.strip()
        .splitlines()[-1]
        .startswith("error: image localhost/no-such-image:never not found")
    )
