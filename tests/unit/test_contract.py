"""The shared contract (gaia2_contract): what the daemon writes is what the runner collects."""

from __future__ import annotations

from gaia2_contract import constants
from gaia2_runner.output import layout


def test_the_runner_collects_what_the_daemon_writes():
    assert set(constants.OUTPUT_FILES) <= layout.SCENARIO_MARKERS
