"""Shared fixtures: scenario files written on the fly, the container engine(s) and their images.

Tests marked `both_engines` run once per engine of `--engines` (default $GAIA2_TEST_ENGINES, else
podman), with ids `[podman]`/`[docker]`; every other test gets podman. For a marked test's duration
$GAIA2_ENGINE names its engine, so the runners it starts (`-m gaia2_runner ...` with os.environ, or
run_scenario without a sandbox) use that engine too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from gaia2_runner.config.engines import ENGINE_ENV, ENGINES, PODMAN
from parallel import (
    GroupScheduling,
    HandOut,
    environ,
    favour_model_server,
    images_lock,
    in_worker,
    mark_groups,
    parallel_guard,
)

BOTH_ENGINES = "both_engines"  # the marker
ENGINES_OPTION = "--engines"
TEST_ENGINES_ENV = "GAIA2_TEST_ENGINES"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        ENGINES_OPTION,
        default=None,
        metavar="LIST",
        help=f"comma-separated engines ({', '.join(ENGINES)}) the tests marked {BOTH_ENGINES} "
        f"run on (default: ${TEST_ENGINES_ENV}, else {PODMAN})",
    )


def chosen_engines(config: pytest.Config) -> list[str]:
    """The engines of --engines / $GAIA2_TEST_ENGINES, in order, each once."""
    given = config.getoption(ENGINES_OPTION)
    source = ENGINES_OPTION if given else f"${TEST_ENGINES_ENV}"
    text = given or os.environ.get(TEST_ENGINES_ENV) or PODMAN
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in ENGINES]
    if unknown or not names:
        raise pytest.UsageError(
            f"error: {source}={text!r}: unknown engine {', '.join(unknown) or '(none)'}; "
            f"give a comma-separated list of {', '.join(ENGINES)}"
        )
    return names


def pytest_configure(config: pytest.Config) -> None:
    chosen_engines(config)  # a bad --engines is one error line at start-up
    if in_worker():
        config.pluginmanager.register(HandOut(), "gaia2-hand-out-order")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker(BOTH_ENGINES) is None:
        return
    if "engine" not in metafunc.fixturenames:
        raise pytest.UsageError(
            f"error: {metafunc.definition.nodeid} is marked {BOTH_ENGINES} but uses no "
            "engine: request the `engine`, `sandbox` or `images` fixture"
        )
    engines = chosen_engines(metafunc.config)
    metafunc.parametrize("engine", engines, indirect=True, scope="session", ids=engines)


def engine_of(item: pytest.Item) -> str | None:
    """The engine a test was parametrised with (None: unmarked, the environment's own engine)."""
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("engine") if callspec is not None else None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On xdist workers: the tests' groups (tests/support/parallel.py), before xdist's own hook
    reads them; parallel.HandOut sorts them last."""
    if in_worker():
        mark_groups(items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`-n N` (`--dist load`) and `--dist loadgroup` with the groups of tests/support/parallel.py
    (GroupScheduling): the suite is only safe in parallel with them."""
    return GroupScheduling(config, log) if config.getvalue("dist") in ("load", "loadgroup") else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """$GAIA2_ENGINE names a marked test's engine from its fixtures' set-up to their teardown (so
    subprocess runners and module fixtures follow it), and is put back afterwards (unit tests never
    see it). On an xdist worker the test runs with the sweep off unless it counts leftovers
    (parallel_guard)."""
    name = engine_of(item)
    with ExitStack() as stack:
        if name is not None:
            stack.enter_context(environ(ENGINE_ENV, name))
        stack.enter_context(parallel_guard(item))
        return (yield)


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
def sandboxes() -> Iterator[Callable[[str], Any]]:
    """`sandboxes("docker")`: that engine's Sandbox, connected once per session and closed at its
    end. Integration tests fail (never skip) when the engine is unusable."""
    from gaia2_runner.errors import Gaia2Error
    from gaia2_runner.sandbox.sandbox import Sandbox

    opened: dict[str, Any] = {}

    def get(name: str) -> Any:
        if name not in opened:
            try:
                opened[name] = Sandbox.connect(None, engine=name)
            except Gaia2Error as exc:
                pytest.fail(f"{name} is not usable on this host: {exc}")
        return opened[name]

    yield get
    for sandbox in opened.values():
        sandbox.close()


@pytest.fixture(scope="session")
def built_images(sandboxes) -> Callable[[str], list[str]]:
    """`built_images("docker")`: build the runtime, oracle and agent images on that engine when
    missing or stale, once per session (on Docker this is also the Docker build test)."""
    from gaia2_runner.sandbox.images import ensure_images

    done: dict[str, list[str]] = {}

    def build(name: str) -> list[str]:
        if name not in done:
            with images_lock():  # one builder at a time; the next finds them fresh
                done[name] = ensure_images(sandboxes(name), log=lambda line: None)
        return done[name]

    return build


@pytest.fixture(scope="session")
def engine(request: pytest.FixtureRequest) -> str:
    """The engine this test runs on: its `both_engines` parameter, else podman."""
    return getattr(request, "param", PODMAN)


@pytest.fixture(scope="session")
def sandbox(engine: str, sandboxes):
    """The test's engine as a real Sandbox."""
    return sandboxes(engine)


@pytest.fixture(scope="session")
def images(engine: str, built_images):
    """The runner's images, built on the test's engine once per session when missing."""
    return built_images(engine)


@pytest.fixture
def fake(tmp_path: Path):
    """A scripted LLM provider (tests/support/fake_llm) on 0.0.0.0, reachable from containers."""
    from fake_llm.server import FakeLLM

    server = FakeLLM(log_path=tmp_path / "llm_requests.jsonl")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def harness_image(sandboxes, built_images):
    """`harness_image("codex")`: build that CLI harness's image (and the Node image) when missing or
    stale, once per session; returns its tag."""
    from gaia2_runner.config.harnesses import get_harness
    from gaia2_runner.sandbox.images import ensure_images

    built: dict[str, str] = {}
    built_images(PODMAN)  # harness images are podman's only (not parametrised by engine)

    def build(name: str) -> str:
        if name not in built:
            harness = get_harness(name)
            with images_lock():
                ensure_images(sandboxes(PODMAN), log=lambda line: None, harnesses=[harness], defaults=False)
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
            if in_worker() and server.process is not None:
                favour_model_server(server.process.pid)  # beside other workers' containers
            yield server
    except RealModelError as exc:
        pytest.fail(f"the real model server is not usable: {exc}")


@pytest.fixture(scope="session")
def ci_model_parity(real_model_server, built_images, tmp_path_factory):
    """scripts/are_parity.py on the CI model, run once (tests/support/are_parity_runs.py): the parity
    test reads the report, the real-model tests of ARE's default agent read its runner side.
    (proc, output directory). Not on `images`: that follows the session-scoped `engine` parameter,
    so any Docker test between two readers made pytest run the whole parity again (10 min)."""
    from are_parity_runs import parity_on_ci_model

    built_images(PODMAN)

    out = tmp_path_factory.mktemp("parity-ci-model") / "parity"
    return parity_on_ci_model(real_model_server, out), out


@pytest.fixture(scope="session")
def harness_runs(sandboxes, harness_image, tmp_path_factory):
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
                result, out = run_harness(
                    sandboxes(PODMAN),
                    image,
                    scenario,
                    tmp / "out",
                    case.run_env(fake),
                    timeout=case.timeout,
                    **case.run_options,
                )
            finally:
                fake.stop()
            done[name, scenario] = HarnessRun(result, out, tmp / "out", fake)
        return done[name, scenario]

    return get
