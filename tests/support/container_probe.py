"""What tests ask of a scenario container from outside: is its daemon running the scenario, is it
still up, does it exist. Tests find their own container by its output directory label (another run
of the same scenario may share the host)."""

from __future__ import annotations

from pathlib import Path

import httpx

from gaia2_contract import constants as contract
from gaia2_runner.sandbox.ownership import LABEL_OUTPUT_DIR


def output_dir_label(scenario_dir: Path) -> str:
    """The label filter matching the container that writes to `scenario_dir`."""
    return f"{LABEL_OUTPUT_DIR}={scenario_dir.resolve()}"


def daemon_status(container) -> str | None:
    """"running" once the daemon's bare GET /health says ok (the scenario is loaded and runs). Asked
    without the adapter token, so it feeds no watchdog (and /status would answer 401)."""
    container.reload()
    ports = (container.attrs.get("NetworkSettings") or {}).get("Ports") or {}
    binding = (ports.get(f"{contract.ADAPTER_PORT}/tcp") or [{}])[0]
    if not binding.get("HostPort"):
        return None
    try:
        resp = httpx.get(f"http://127.0.0.1:{binding['HostPort']}/health", timeout=1, trust_env=False)
        return "running" if resp.json().get("status") == "ok" else resp.json().get("status")
    except (httpx.HTTPError, ValueError):
        return None


def is_running(container) -> bool:
    try:
        container.reload()
    except Exception:  # noqa: BLE001 - gone counts as not running
        return False
    return container.attrs.get("State", {}).get("Running") is True


def exists(backend, container) -> bool:
    return bool(backend.client.containers.exists(container.id))
