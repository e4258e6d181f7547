"""Shared helpers: scenario files written on the fly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest


def scenario_doc(scenario_id: str | None = "demo_ok", duration: Any = 30) -> dict:
    definition: dict[str, Any] = {"duration": duration}
    if scenario_id is not None:
        definition["scenario_id"] = scenario_id
    return {"metadata": {"definition": definition}, "apps": [], "events": []}


@pytest.fixture
def write_scenario(tmp_path: Path) -> Callable[..., Path]:
    def _write(name: str = "scenario.json", doc: Any = None, text: str | None = None) -> Path:
        path = tmp_path / name
        path.write_text(text if text is not None else json.dumps(doc if doc is not None else scenario_doc()))
        return path

    return _write


@pytest.fixture
def demo_dataset(tmp_path: Path) -> Callable[..., Path]:
    """`demo_dataset(names, split="demo")`: a dataset root (tmp_path/data) with one split holding
    the named demo scenarios (all by default)."""
    from dataset_support import demo_split

    return lambda names=None, split="demo": demo_split(tmp_path / "data", names, split)


@pytest.fixture(scope="session")
def backend():
    """The real podman service; integration tests fail (never skip) when it is unusable."""
    from gaia2_runner.errors import Gaia2Error
    from gaia2_runner.sandbox.podman import PodmanBackend

    try:
        b = PodmanBackend.connect()
    except Gaia2Error as exc:
        pytest.fail(f"podman is not usable on this host: {exc}")
    yield b
    b.close()


@pytest.fixture(scope="session")
def images(backend):
    """Build the runtime and oracle images once per test session when they are missing."""
    from gaia2_runner.sandbox.images import ensure_images

    built = ensure_images(backend, log=lambda line: None)
    return built


@pytest.fixture
def fake(tmp_path: Path):
    """A scripted LLM provider (tests/support/fake_llm) on 0.0.0.0, reachable from containers."""
    from fake_llm.server import FakeLLM

    server = FakeLLM(log_path=tmp_path / "llm_requests.jsonl")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def harness_image(backend, images):
    """`harness_image("codex")`: build that CLI harness's image (and the Node image) when missing or
    stale, once per session; returns its tag."""
    from gaia2_runner.config.harnesses import get_harness
    from gaia2_runner.sandbox.images import ensure_images

    built: dict[str, str] = {}

    def build(name: str) -> str:
        if name not in built:
            harness = get_harness(name)
            ensure_images(backend, log=lambda line: None, harnesses=[harness], defaults=False)
            built[name] = harness.image
        return built[name]

    return build


@pytest.fixture(scope="session")
def real_model_server(tmp_path_factory):
    """A real llama-server with a small model (tests/support/real_model.py), started once per session and
    always stopped; `.container_url` / `.host_url` / `.model`. Fails (never skips) when it cannot be
    set up: the real-model tests must run wherever the suite runs, CI included."""
    from real_model import RealModelError, running_server

    try:
        with running_server(tmp_path_factory.mktemp("real-model")) as server:
            yield server
    except RealModelError as exc:
        pytest.fail(f"the real model server is not usable: {exc}")


@pytest.fixture(scope="session")
def harness_runs(backend, harness_image, tmp_path_factory):
    """`harness_runs("codex", CALENDAR)`: that CLI harness solving the calendar task (or, with
    MULTI_TURN, the two-turn email task) as its row of tests/support/harness_cases.py scripts it,
    run once per session: the common harness tests (tests/e2e/test_harnesses.py) and the harness's
    own file read the same run (one takes the better part of a minute)."""
    from fake_llm.server import FakeLLM
    from harness_cases import CALENDAR, CASES, MULTI_TURN
    from harness_support import HarnessRun, run_harness

    done: dict[tuple[str, str], HarnessRun] = {}

    def get(name: str, scenario: str) -> HarnessRun:
        assert scenario in (CALENDAR, MULTI_TURN), scenario
        if (name, scenario) not in done:
            case = CASES[name]
            script = case.calendar_script() if scenario == CALENDAR else case.multi_turn_script()
            image = harness_image(name)
            tmp = tmp_path_factory.mktemp(f"{name}-{scenario}")
            fake = FakeLLM({case.route: script}, tmp / "llm_requests.jsonl")
            fake.start()
            try:
                result, out = run_harness(backend, image, scenario, tmp / "out", case.run_env(fake),
                                          timeout=case.timeout, **case.run_options)
            finally:
                fake.stop()
            done[name, scenario] = HarnessRun(result, out, tmp / "out", fake)
        return done[name, scenario]

    return get
