"""The rlimits every podman container is created with (sandbox/container_limits.py)."""

from __future__ import annotations

import resource

import pytest

from gaia2_runner.config.limits import ContainerLimits
from gaia2_runner.sandbox import container_limits
from gaia2_runner.sandbox.container_limits import NOFILE_LIMIT, NPROC_LIMIT, limit_options, nproc_limit


def test_nofile_restated_and_nproc_high_enough_not_to_couple_containers() -> None:
    limits = {
        u["Name"]: (u["Soft"], u["Hard"]) for u in limit_options(ContainerLimits.of(pids=300))["ulimits"]
    }
    # an explicit list replaces containers.conf's default_ulimits whole: nofile must be in it
    assert limits == {"nofile": (NOFILE_LIMIT, NOFILE_LIMIT), "nproc": (nproc_limit(), nproc_limit())}
    assert nproc_limit() > 1024  # the containers.conf value that let agents starve each other


@pytest.mark.parametrize(
    ("hard", "expected"), [(resource.RLIM_INFINITY, NPROC_LIMIT), (4096, 4096), (10**6, NPROC_LIMIT)]
)
def test_nproc_never_above_the_runners_own_hard_limit(
    monkeypatch: pytest.MonkeyPatch, hard: int, expected: int
) -> None:
    monkeypatch.setattr(container_limits.resource, "getrlimit", lambda _which: (hard, hard))
    assert nproc_limit() == expected
