"""`check-image IMAGE`: run the container contract against one scenario and say, point by point,
what an image honours (docs/reference/container-contract.md). For images built outside this repository: a
harness of one's own, an image of another runner."""

from __future__ import annotations

import io
import json
import tarfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

from gaia2_contract import constants as contract
from gaia2_contract import routes
from gaia2_runner.config.defaults import CHECK_IMAGE_TIMEOUT_S, DEFAULT_HEALTH_TIMEOUT_S
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.container_env import container_env
from gaia2_runner.sandbox.adapter import AdapterClient, AdapterError
from gaia2_runner.sandbox.container_handle import ContainerHandle
from gaia2_runner.sandbox.sandbox import Sandbox
from gaia2_runner.targets import load_scenario


@dataclass(frozen=True)
class Point:
    """One contract point: `ok` None when it could not be checked (an earlier point failed)."""

    name: str
    ok: bool | None
    detail: str


def check_image(
    image: str,
    scenario_path: Path,
    sandbox: Sandbox,
    env: Mapping[str, str] | None = None,
    timeout: float = CHECK_IMAGE_TIMEOUT_S,
    health_timeout: float = DEFAULT_HEALTH_TIMEOUT_S,
    progress: Callable[[str], None] = lambda _m: None,
) -> list[Point]:
    """Start `image` on the scenario as a run would, probe the adapter, wait for a final status,
    read /gaia2/output; the container is removed afterwards."""
    if not sandbox.image_exists(image):
        raise Gaia2Error(f"image {image} not found: build or pull it first")
    scenario = load_scenario(scenario_path)
    points: list[Point] = []
    env = container_env(None, scenario_timeout=timeout, health_timeout=health_timeout, extra=env)
    handle = sandbox.run_scenario_container(image, scenario.raw, env, scenario.scenario_id)
    try:
        progress(f"started {image} on {scenario.scenario_id}")
        _probe(handle, scenario.scenario_id, timeout, health_timeout, points, progress)
    finally:
        handle.cleanup()
    return points


def _probe(
    handle: ContainerHandle,
    scenario_id: str,
    timeout: float,
    health_timeout: float,
    points: list[Point],
    progress: Callable[[str], None],
) -> None:
    add = lambda name, ok, detail: points.append(Point(name, ok, detail))  # noqa: E731
    anonymous = httpx.Client(base_url=handle.base_url, timeout=2.0, trust_env=False)
    wrong = httpx.Client(
        base_url=handle.base_url,
        timeout=2.0,
        trust_env=False,
        headers={"Authorization": "Bearer not-the-token"},
    )
    with (
        anonymous,
        wrong,
        AdapterClient(handle.base_url, handle.adapter_token, request_timeout=2.0) as client,
    ):
        started = time.monotonic()
        try:
            body = client.wait_healthy(health_timeout, container_alive=handle.is_running)
        except AdapterError as exc:
            add("GET /health turns ok", False, str(exc))
            _skip(points, "the adapter never became healthy")
            return
        add(
            "GET /health turns ok",
            True,
            f"after {time.monotonic() - started:.1f}s, runtime {body.get('runtime')!r}",
        )
        add(
            "/health names the scenario",
            body.get("scenario_id") == scenario_id,
            f"scenario_id {body.get('scenario_id')!r}",
        )
        _check_tokens(anonymous, wrong, add)
        status = _wait_final(client, timeout, progress)
        _check_final(status, add)
    _check_files(handle, status, points)


def _check_tokens(
    anonymous: httpx.Client, wrong: httpx.Client, add: Callable[[str, bool, str], None]
) -> None:
    """Without the adapter token (or with a wrong one) /health says only the state, the rest is 401."""
    bare = anonymous.get(routes.HEALTH)
    add(
        "/health without the token says only the state",
        set(_json(bare)) <= {"status"},
        f"fields {sorted(_json(bare))}",
    )
    refused = [
        anonymous.get(routes.STATUS).status_code,
        wrong.get(routes.STATUS).status_code,
        anonymous.post(routes.NOTIFY, json={"message": "x"}).status_code,
    ]
    add(
        "adapter routes refuse a missing or wrong token",
        refused == [401, 401, 401],
        f"/status without / with a wrong token, /notify without: {refused}",
    )


def _check_final(status: dict, add: Callable[[str, bool, str], None]) -> None:
    """The run reached a final status, and a judged one carries a verdict."""
    final = status.get("status")
    add(
        "GET /status reaches a final status",
        final in contract.FINAL_STATUSES,
        f"status {final!r}" + (f", error {status.get('error')!r}" if status.get("error") else ""),
    )
    if final in contract.JUDGED_STATUSES:
        judgment = status.get("judgment") or {}
        add(
            "a judged status carries a verdict",
            isinstance(judgment.get("success"), bool),
            f"judgment.success = {judgment.get('success')!r}",
        )


def _wait_final(client: AdapterClient, timeout: float, progress: Callable[[str], None]) -> dict:
    deadline, status, last = time.monotonic() + timeout, {}, None
    while time.monotonic() < deadline:
        try:
            status = client.get_status()
        except (AdapterError, httpx.HTTPError):
            status = {}
        if status.get("status") != last:
            last = status.get("status")
            progress(f"status: {last}")
        if status.get("status") in contract.FINAL_STATUSES:
            break
        time.sleep(0.5)
    return status


def _check_files(handle: ContainerHandle, status: dict, points: list[Point]) -> None:
    add = lambda name, ok, detail: points.append(Point(name, ok, detail))  # noqa: E731
    try:
        files = _read_tar(handle.get_archive(contract.OUTPUT_DIR))
    except Exception as exc:  # noqa: BLE001 - any failure here is the point's finding
        add(f"{contract.OUTPUT_DIR} can be read", False, f"{type(exc).__name__}: {exc}")
        return
    events = files.get(contract.EVENTS_FILE)
    lines = [line for line in (events or b"").decode(errors="replace").splitlines() if line.strip()]
    parsed = [_json_line(line) for line in lines]
    add(
        f"{contract.EVENTS_FILE} is JSON lines with seq and kind",
        events is not None and all(isinstance(p, dict) and "seq" in p and "kind" in p for p in parsed),
        "missing" if events is None else f"{len(lines)} lines",
    )
    saved = _json_line((files.get(contract.STATUS_FILE) or b"").decode(errors="replace"))
    add(
        f"{contract.STATUS_FILE} matches the final /status",
        isinstance(saved, dict) and saved.get("status") == status.get("status"),
        f"saved status {saved.get('status') if isinstance(saved, dict) else None!r}",
    )
    leaked = [name for name, data in files.items() if handle.adapter_token.encode() in data]
    add(
        "the adapter token is in no output file",
        not leaked,
        ", ".join(leaked) or f"none of {len(files)} files",
    )
    try:
        scenario = _members(handle.get_archive(contract.INPUT_DIR))
    except Exception:  # noqa: BLE001
        scenario = {}
    top = scenario.get("input")
    add(
        f"{contract.INPUT_DIR} is root's alone (the agent cannot read the answers)",
        top is not None and top.uid == 0 and top.mode & 0o077 == 0,
        f"mode {oct(top.mode & 0o777) if top else '?'} uid {top.uid if top else '?'}",
    )


def _skip(points: list[Point], why: str) -> None:
    for name in ("adapter routes refuse a missing or wrong token", "GET /status reaches a final status"):
        points.append(Point(name, None, f"not checked: {why}"))


def _read_tar(blob: bytes) -> dict[str, bytes]:
    out = {}
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                data = tar.extractfile(member)
                out[Path(member.name).name] = data.read() if data else b""
    return out


def _members(blob: bytes) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        return {m.name.rstrip("/"): m for m in tar.getmembers()}


def _json(resp: httpx.Response) -> dict:
    value = _json_line(resp.text)
    return value if isinstance(value, dict) else {}


def _json_line(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None
