"""What tests ask of a scenario container from outside, through the engine-neutral Sandbox API
(list_labelled, inspect, container_exists), so the same assertions hold on podman and Docker: is
its daemon running the scenario, is it still up, does it exist, what did it write. Tests find
their own container by its output directory label (another run of the same scenario may share the
host)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

import httpx

from gaia2_contract import constants as contract
from gaia2_runner.sandbox.container_handle import ContainerHandle
from gaia2_runner.sandbox.engine import ContainerRecord
from gaia2_runner.sandbox.ownership import LABEL_OUTPUT_DIR


def output_dir_label(scenario_dir: Path) -> str:
    """The label filter matching the container that writes to `scenario_dir`."""
    return f"{LABEL_OUTPUT_DIR}={scenario_dir.resolve()}"


def running(sandbox: Any, label: str) -> list[ContainerRecord]:
    """The running containers carrying `label` ("key=value")."""
    return [r for r in sandbox.list_labelled(label) if r.state == "running"]


def adapter_port(sandbox: Any, cid: str) -> int | None:
    """The host port the container's adapter is published on (None: not yet, or gone)."""
    ports = (sandbox.inspect(cid).get("NetworkSettings") or {}).get("Ports") or {}
    binding = (ports.get(f"{contract.ADAPTER_PORT}/tcp") or [{}])[0]
    return int(binding["HostPort"]) if str(binding.get("HostPort") or "").isdigit() else None


def daemon_status(sandbox: Any, cid: str) -> str | None:
    """ "running" once the daemon's bare GET /health says ok (the scenario is loaded and runs). Asked
    without the adapter token, so it feeds no watchdog (and /status would answer 401)."""
    port = adapter_port(sandbox, cid)
    if port is None:
        return None
    try:
        resp = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1, trust_env=False)
        return "running" if resp.json().get("status") == "ok" else resp.json().get("status")
    except (httpx.HTTPError, ValueError):
        return None


def is_running(sandbox: Any, cid: str) -> bool:
    """Gone or unknown counts as not running."""
    return (sandbox.inspect(cid).get("State") or {}).get("Running") is True


def exists(sandbox: Any, cid: str) -> bool:
    return sandbox.container_exists(cid)


def handle_of(sandbox: Any, record: ContainerRecord) -> ContainerHandle:
    """A handle on a container this process did not start (its engine-neutral wait and archive)."""
    return ContainerHandle(cid=record.id, name=record.name, host_port=0, sandbox=sandbox)


def output_file(handle: ContainerHandle, name: str) -> str:
    """One file of the container's output directory, as text."""
    with tarfile.open(fileobj=io.BytesIO(handle.get_archive(f"{contract.OUTPUT_DIR}/{name}"))) as tar:
        member = tar.extractfile(tar.getmembers()[0])
        assert member is not None, name
        return member.read().decode()


def exec_in(sandbox: Any, cid: str, command: list[str], user: str = "root") -> tuple[int, bytes]:
    """Run `command` in a running container, as a test looks inside (the runner itself never
    execs: images stay black boxes). Exit code and stdout+stderr, on either engine."""
    from gaia2_runner.config.engines import DOCKER

    if sandbox.engine == DOCKER:
        api = sandbox.driver.api
        exec_id = api.exec_create(cid, command, user=user)["Id"]
        output = api.exec_start(exec_id)
        return int(api.exec_inspect(exec_id)["ExitCode"]), output
    code, output = sandbox.driver.client.containers.get(cid).exec_run(command, user=user)
    return int(code), output


def start_python(sandbox: Any, image: str, script: str, *args: str, **create: Any) -> Any:
    """A started container of its own in which the image's Python runs `script` (`python -c script
    *args`); `create`: more options for the engine's create (network mode, limits). The caller
    removes it (`remove(force=True, v=True)`: its output volume too, Containerfile.base)."""
    container = sandbox.driver.client.containers.create(
        image, entrypoint=["/opt/gaia2/venv/bin/python", "-c", script, *args], **create
    )
    container.start()
    return container


def output_of(container: Any) -> str:
    """What the container wrote to stdout and stderr so far, as text."""
    return b"".join(
        chunk if isinstance(chunk, bytes) else str(chunk).encode()
        for chunk in container.logs(stdout=True, stderr=True)
    ).decode(errors="replace")


def run_python(sandbox: Any, image: str, script: str, *args: str, **create: Any) -> tuple[int, str]:
    """start_python to its end; the container is removed; returns (exit code, stdout + stderr)."""
    container = start_python(sandbox, image, script, *args, **create)
    try:
        code = container.wait()
        text = output_of(container)
    finally:
        container.remove(force=True, v=True)  # and the output volume (Containerfile.base)
    return code, text
