"""Containers left behind by runners that died: find them by label, remove them.

A container stops by itself once its runner is gone (the daemon's watchdog), but it is not removed:
its logs and /gaia2/output stay for `podman logs` / `podman cp` until the next invocation that
starts containers (`PodmanBackend` sweeps once, before its first container) or `gaia2-runner clean`
removes it. Only containers whose runner is provably gone are swept (ownership.owner_state);
containers of live runners, or of runners nobody can check from here, are never touched unless
asked for (`clean --all`). The sweep can be turned off: `--no-sweep`, `[run] sweep = false`, or
GAIA2_SWEEP=0 in the environment (the setting wins over the variable).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any, Iterable

from gaia2_runner.config.schema import SWEEP_ENV  # 0/false/no/off: never remove leftovers by themselves
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.ownership import (
    DEAD,
    LABEL_OUTPUT_DIR,
    LABEL_SCENARIO_ID,
    RUNNER_FILTER,
    Owner,
    owner_state,
)
from podman.errors import APIError, NotFound

STOP_TIMEOUT_S = 2
_OFF, _ON = ("0", "false", "no", "off"), ("1", "true", "yes", "on", "")


def sweep_wanted(setting: bool | None, env: "os._Environ[str] | dict[str, str] | None" = None) -> bool:
    """Whether an invocation sweeps: the setting when given, else $GAIA2_SWEEP, else yes."""
    if setting is not None:
        return setting
    raw = (os.environ if env is None else env).get(SWEEP_ENV, "").strip().lower()
    if raw not in _OFF + _ON:
        raise Gaia2Error(f"{SWEEP_ENV}={raw[:40]!r}: use 0 (never remove leftovers by itself) or 1 (the default)")
    return raw not in _OFF


@dataclass(frozen=True)
class Leftover:
    """One container the runner started, with what its labels say about its owner."""

    id: str
    name: str
    state: str  # podman's: running, exited, created, …
    scenario_id: str
    output_dir: str
    owner: Owner | None
    owner_state: str  # one of ownership's states: ALIVE, DEAD, OTHER_HOST, …

    @property
    def orphaned(self) -> bool:
        """Its runner is gone for sure: safe to remove without asking."""
        return self.owner_state == DEAD


def runner_containers(client: Any) -> list[Leftover]:
    """Every container carrying the runner's label, running or not, oldest first."""
    try:
        found = client.containers.list(all=True, filters={"label": RUNNER_FILTER})
    except APIError as exc:
        raise Gaia2Error(f"cannot list containers: {exc}") from None
    items = []
    for container in sorted(found, key=lambda c: str(c.attrs.get("Created", ""))):
        labels = container.attrs.get("Labels") or {}
        names = container.attrs.get("Names") or [container.id[:12]]
        owner = Owner.from_labels(labels)
        items.append(Leftover(
            id=container.id, name=str(names[0]).lstrip("/"), state=str(container.attrs.get("State", "")),
            scenario_id=labels.get(LABEL_SCENARIO_ID, ""), output_dir=labels.get(LABEL_OUTPUT_DIR, ""),
            owner=owner, owner_state=owner_state(owner)))
    return items


def remove_containers(client: Any, items: Iterable[Leftover]) -> tuple[list[Leftover], list[str]]:
    """Stop (briefly) and remove each; returns the removed ones and one message per failure.
    A container that is already gone counts as removed (another invocation got there first)."""
    removed: list[Leftover] = []
    errors: list[str] = []
    for item in items:
        try:
            if item.state == "running":
                with contextlib.suppress(NotFound):
                    client.containers.get(item.id).stop(timeout=STOP_TIMEOUT_S)
            client.containers.remove(item.id, force=True, v=True)  # and its output volume
        except NotFound:
            pass
        except APIError as exc:
            errors.append(f"{item.name}: {' '.join(str(exc).split())}")
            continue
        removed.append(item)
    return removed, errors


def sweep_orphans(client: Any) -> list[Leftover]:
    """Remove the containers whose runner is gone; never raises (a run must not fail on this)."""
    try:
        orphans = [item for item in runner_containers(client) if item.orphaned]
        return remove_containers(client, orphans)[0]
    except (Gaia2Error, APIError, OSError):
        return []
