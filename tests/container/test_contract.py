"""The host's and the container's halves of the contract must agree (neither can import the other)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from gaia2_runner import contract as host
from gaia2_runner.output import layout

CONTAINER_CONTRACT = Path(__file__).resolve().parents[2] / "containers" / "gaia2_container" / "contract.py"


def _container():
    spec = importlib.util.spec_from_file_location("container_contract", CONTAINER_CONTRACT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _constants(module) -> dict:
    return {name: getattr(module, name) for name in dir(module) if name.isupper()}


def test_every_host_constant_has_the_same_value_in_the_container():
    container = _constants(_container())
    host_values = _constants(host)
    assert len(host_values) >= 20
    for name, value in host_values.items():
        assert name in container, f"{name} missing from {CONTAINER_CONTRACT}"
        assert container[name] == value, f"{name}: host {value!r} != container {container[name]!r}"


def test_the_runner_collects_what_the_daemon_writes():
    container = _container()
    assert set(container.OUTPUT_FILES) <= layout.SCENARIO_MARKERS
    assert container.SCENARIO_FILE_NAME == host.SCENARIO_FILE_NAME
