"""Containers left behind by runners that died: find them by label, remove them.

A container stops by itself once its runner is gone (the daemon's watchdog), but it is not removed:
its logs and /gaia2/output stay for `podman logs`/`docker logs` and `cp` until the next invocation that
starts containers (`Sandbox` sweeps once, before its first container) or `gaia2-runner clean`
removes it. Only containers whose runner is provably gone are swept (ownership.owner_state);
containers of live runners, or of runners nobody can check from here, are never touched unless
asked for (`clean --all`). The sweep can be turned off: `--no-sweep`, `[run] sweep = false`, or
GAIA2_SWEEP=0 in the environment (the setting wins over the variable).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gaia2_runner.config.environment import SWEEP_ENV as SWEEP_ENV  # for sweep_wanted's callers
from gaia2_runner.config.environment import sweep_requested  # $GAIA2_SWEEP's one reader
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.engine import EngineDriver
from gaia2_runner.sandbox.ownership import (
    DEAD,
    LABEL_OUTPUT_DIR,
    LABEL_SCENARIO_ID,
    RUNNER_FILTER,
    Owner,
    owner_state,
)

STOP_TIMEOUT_S = 2


# Whether an invocation sweeps: the setting when given, else $GAIA2_SWEEP, else yes.
sweep_wanted = sweep_requested


@dataclass(frozen=True)
class Leftover:
    """One container the runner started, with what its labels say about its owner."""

    id: str
    name: str
    state: str  # the engine's: running, exited, created, …
    scenario_id: str
    output_dir: str
    owner: Owner | None
    owner_state: str  # one of ownership's states: ALIVE, DEAD, OTHER_HOST, …

    @property
    def orphaned(self) -> bool:
        """Its runner is gone for sure: safe to remove without asking."""
        return self.owner_state == DEAD


def runner_containers(driver: EngineDriver) -> list[Leftover]:
    """Every container carrying the runner's label, running or not, oldest first."""
    items = []
    for record in sorted(driver.list_labelled(RUNNER_FILTER), key=lambda r: r.created):
        labels = record.labels
        owner = Owner.from_labels(labels)
        items.append(
            Leftover(
                id=record.id,
                name=record.name,
                state=record.state,
                scenario_id=labels.get(LABEL_SCENARIO_ID, ""),
                output_dir=labels.get(LABEL_OUTPUT_DIR, ""),
                owner=owner,
                owner_state=owner_state(owner),
            )
        )
    return items


def remove_containers(driver: EngineDriver, items: Iterable[Leftover]) -> tuple[list[Leftover], list[str]]:
    """Stop (briefly) and remove each; returns the removed ones and one message per failure.
    A container that is already gone counts as removed (another invocation got there first)."""
    removed: list[Leftover] = []
    errors: list[str] = []
    for item in items:
        try:
            if item.state == "running":
                driver.stop(item.id, STOP_TIMEOUT_S)
            if not driver.remove(item.id):  # and its volumes
                errors.append(f"{item.name}: the engine did not answer")
                continue
        except Gaia2Error as exc:
            errors.append(f"{item.name}: {' '.join(str(exc).split())}")
            continue
        removed.append(item)
    return removed, errors


def sweep_orphans(driver: EngineDriver) -> list[Leftover]:
    """Remove the containers whose runner is gone; never raises (a run must not fail on this)."""
    try:
        orphans = [item for item in runner_containers(driver) if item.orphaned]
        return remove_containers(driver, orphans)[0]
    except (Gaia2Error, OSError):
        return []
