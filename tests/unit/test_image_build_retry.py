"""A build whose RUN step the engine killed itself (podman#17918) runs again; any other failure,
or the same one at every try, is the build's error with the engine's message."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.engine import BuildResult
from gaia2_runner.sandbox.images import BUILD_ATTEMPTS, ENGINE_KILLED_RUN, ImageSpec, build_image

KILLED = f'building at STEP "RUN echo hi": {ENGINE_KILLED_RUN}'


class ScriptedBuilds:
    """A driver whose builds answer in turn from `results`; counts them."""

    def __init__(self, *results: BuildResult) -> None:
        self.results = list(results)
        self.calls = 0

    def build(self, body, params, log) -> BuildResult:
        body.read()
        self.calls += 1
        return self.results.pop(0)


def sandbox_with(driver: ScriptedBuilds, built: bool) -> SimpleNamespace:
    return SimpleNamespace(driver=driver, image_exists=lambda _tag: built)


@pytest.fixture
def context(tmp_path: Path) -> Path:
    (tmp_path / "Containerfile").write_text("FROM scratch\nRUN echo hi\n")
    return tmp_path


SPEC = ImageSpec(tag="localhost/test-retry:latest", containerfile="Containerfile", buildargs={})


def test_a_run_step_the_engine_killed_is_built_again(context):
    driver = ScriptedBuilds(BuildResult(None, KILLED), BuildResult("sha256:abc", None))
    lines: list[str] = []
    assert (
        build_image(sandbox_with(driver, True), SPEC, context, log=lines.append, digest="d") == "sha256:abc"
    )
    assert driver.calls == 2
    assert lines == [f"the engine killed a RUN step of {SPEC.tag} (podman#17918): building again"]


def test_killed_at_every_try_is_the_builds_error(context):
    driver = ScriptedBuilds(*[BuildResult(None, KILLED)] * BUILD_ATTEMPTS)
    with pytest.raises(Gaia2Error, match="signal: killed"):
        build_image(sandbox_with(driver, False), SPEC, context, digest="d")
    assert driver.calls == BUILD_ATTEMPTS


def test_any_other_failure_is_not_retried(context):
    driver = ScriptedBuilds(BuildResult(None, 'building at STEP "RUN false": exit status 1'))
    with pytest.raises(Gaia2Error, match="exit status 1"):
        build_image(sandbox_with(driver, False), SPEC, context, digest="d")
    assert driver.calls == 1
