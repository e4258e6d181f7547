"""A warm spare's spec: the cold path's minus the scenario's own parts, and which runs it may serve."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from gaia2_contract import constants as contract
from gaia2_runner.config.limits import DEFAULT_LIMITS
from gaia2_runner.sandbox.container_limits import tmpfs_places
from gaia2_runner.sandbox.docker_options import create_options as docker_options
from gaia2_runner.sandbox.engine import Bind, ContainerSpec, EngineUnavailable
from gaia2_runner.sandbox.ownership import LABEL_SCENARIO_ID
from gaia2_runner.sandbox.podman_driver import create_options as podman_options
from gaia2_runner.sandbox.warm_pool import WARM_SCENARIO_LABEL, WarmPool, spare_spec, spec_key

CA = ("/gaia2/ca", "bundle.pem", b"-----BEGIN CERTIFICATE-----", 0o644)


def cold_spec(scenario: str = "demo_email_reply", timeout: str = "300", **changes) -> ContainerSpec:
    spec = ContainerSpec(
        image="localhost/gaia2-oracle",
        name=f"gaia2-{scenario}-abc123",
        env={
            contract.ENV_RUNTIME: "oracle",
            contract.ENV_SCENARIO_TIMEOUT: timeout,
            contract.ENV_DEADLINE: str(int(timeout) + 700),
            contract.ENV_IDLE_TIMEOUT: "60",
        },
        labels={LABEL_SCENARIO_ID: scenario},
        adapter_port=contract.ADAPTER_PORT,
        host_port=40000,
        limits=DEFAULT_LIMITS,
        tmpfs=tmpfs_places(DEFAULT_LIMITS),
        upload_dirs=(contract.INPUT_DIR, "/gaia2/ca"),
    )
    return replace(spec, **changes)


def test_a_spare_has_no_scenario_variables_and_says_it_is_warm():
    spare = spare_spec(cold_spec(), contract.INPUT_DIR)
    assert not set(contract.ASSIGNED_ENV) & set(spare.env)
    assert spare.env[contract.ENV_WARM] == "1"
    assert spare.env[contract.ENV_RUNTIME] == "oracle" and spare.env[contract.ENV_IDLE_TIMEOUT] == "60"
    assert spare.labels[LABEL_SCENARIO_ID] == WARM_SCENARIO_LABEL
    assert (
        spare.name.startswith("gaia2-warm-")
        and spare.name != spare_spec(cold_spec(), contract.INPUT_DIR).name
    )
    # The scenario arrives after start: podman mounts its directory as a root-only tmpfs (its layer
    # takes files before start only); Docker makes it a volume, once.
    assert spare.late_upload_dirs == (contract.INPUT_DIR,)
    mounts = podman_options(spare)["mounts"]
    (place,) = [m for m in mounts if m["target"] == contract.INPUT_DIR]
    assert place["type"] == "tmpfs" and place["mode"] == "0700"
    assert docker_options(spare, "gaia2-isolated")["volumes"].count(contract.INPUT_DIR) == 1
    cold = podman_options(cold_spec())["mounts"]
    assert not [m for m in cold if m["target"] == contract.INPUT_DIR]  # a cold start: in its layer


def test_a_spare_serves_only_runs_of_its_own_spec():
    key = spec_key(cold_spec(), [CA])
    # Another scenario, time limit, name or port: the same container.
    assert spec_key(cold_spec("demo_cab_order", timeout="45", host_port=41000), [CA]) == key
    assert spec_key(spare_spec(cold_spec(), contract.INPUT_DIR), [CA]) == key
    # Anything else the container is made of: not the same.
    different = [
        spec_key(cold_spec(image="localhost/gaia2-agent"), [CA]),
        spec_key(cold_spec(env={contract.ENV_RUNTIME: "agent"}), [CA]),
        spec_key(cold_spec(limits=replace(DEFAULT_LIMITS, memory_bytes=1 << 30)), [CA]),
        spec_key(cold_spec(binds=(Bind("/data/fs", contract.FILESYSTEM_DIR),)), [CA]),
        spec_key(cold_spec(), []),
        spec_key(cold_spec(), [(*CA[:2], b"another CA", CA[3])]),
    ]
    assert key not in different and len(set(different)) == len(different)


class FakeSpare:
    """A spare whose engine API is away when the scenario is copied in (put_file)."""

    def __init__(self, number: int) -> None:
        self.id = self.name = f"spare-{number}"
        self.base_url, self.adapter_token, self.warm = "http://127.0.0.1:9", "token", False
        self.cleaned = False

    def put_file(self, *args, **kwargs) -> None:
        raise EngineUnavailable("podman API unreachable")

    def is_running(self) -> bool:
        return True

    def cleanup(self, timeout: int = 5) -> None:
        self.cleaned = True


class FakeStarter:
    def __init__(self) -> None:
        self.started: list[FakeSpare] = []

    def start_container(self, spec, uploads) -> FakeSpare:
        self.started.append(FakeSpare(len(self.started)))
        return self.started[-1]


def wait_until(predicate) -> None:
    deadline = time.monotonic() + 10
    while not predicate():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_an_engine_outage_while_a_spare_is_given_its_scenario_is_the_engines_not_the_spares():
    """The run waits for the API (EngineUnavailable goes up, as on the cold path) and the spec
    stays warm: the outage says nothing about the image's daemon."""
    starter, warnings = FakeStarter(), []
    pool = WarmPool(starter, 1, lambda: 1, warnings.append)
    scenario = (contract.INPUT_DIR, contract.SCENARIO_FILE_NAME, b"{}", 0o644)
    try:
        assert pool.take(cold_spec(), [CA], scenario, {}) is None  # nothing warm yet: a spare starts
        wait_until(lambda: pool.spare_ids() == {"spare-0"})
        with pytest.raises(EngineUnavailable):
            pool.take(cold_spec(), [CA], scenario, {})
        assert starter.started[0].cleaned and warnings == []
        wait_until(lambda: pool.spare_ids() == {"spare-1"})  # still warm: the next spare came
    finally:
        pool.close()
