"""What the red-team tests hand their attacker (tests/support/redteam_attacker.py): a victim
container as an attacker would want it described (name, addresses, published port, its token as if
leaked), the host's addresses, and the spares of the warm pool to aim at."""

from __future__ import annotations

import subprocess
import time

import httpx

from gaia2_contract import constants as contract
from gaia2_contract import routes
from gaia2_runner.sandbox.ownership import LABEL_SCENARIO_ID
from gaia2_runner.sandbox.warm_pool import WARM_SCENARIO_LABEL


def host_ipv4_addresses() -> list[str]:
    try:
        out = subprocess.run(
            ["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return sorted(
        {line.split()[3].split("/")[0] for line in out.splitlines() if len(line.split()) > 3} - {"127.0.0.1"}
    )


def describe(sandbox, cid: str, scenario_id: str, spare: bool = False) -> dict:
    """What an attacker would want to know about a victim: name, addresses, published port, token;
    `spare`: a warm spare (no scenario yet: reached when it answers /status at all)."""
    attrs = sandbox.inspect(cid)
    env = dict(item.split("=", 1) for item in attrs["Config"]["Env"] if "=" in item)
    ports = attrs["NetworkSettings"]["Ports"][f"{contract.ADAPTER_PORT}/tcp"]
    nets = attrs["NetworkSettings"].get("Networks") or {}
    ips = {attrs["NetworkSettings"].get("IPAddress")} | {n.get("IPAddress") for n in nets.values()}
    return {
        "scenario_id": scenario_id,
        "token": env[contract.ENV_ADAPTER_TOKEN],
        "port": int(ports[0]["HostPort"]),
        "name": attrs["Name"].lstrip("/"),
        "ips": sorted(ip for ip in ips if ip),
        "spare": spare,
    }


def wait_for_spare(sandbox):
    """The one spare of `sandbox.pool`, once started: labelled as a spare, warm, and without the
    scenario's own variables."""
    deadline = time.monotonic() + 120
    while not sandbox.pool.spare_ids():
        assert time.monotonic() < deadline, "no spare was started"
        time.sleep(0.2)
    (cid,) = sandbox.pool.spare_ids()
    labels = sandbox.inspect(cid)["Config"]["Labels"]
    assert labels[LABEL_SCENARIO_ID] == WARM_SCENARIO_LABEL
    env = sandbox.inspect(cid)["Config"]["Env"]
    assert f"{contract.ENV_WARM}=1" in env and not any(
        item.startswith(f"{name}=") for item in env for name in contract.ASSIGNED_ENV
    )
    return sandbox._live[cid]


def spare_status(handle) -> str:
    """The daemon's /health status: `starting` while a spare waits for its scenario."""
    with httpx.Client(trust_env=False, timeout=5) as http:
        resp = http.get(
            handle.base_url + routes.HEALTH, headers={"Authorization": f"Bearer {handle.adapter_token}"}
        )
        return str(resp.json().get("status"))


def assign_by_runner(handle, scenario: bytes) -> int:
    """Give a spare `scenario` as the runner does (copy, then POST /assign with its token): the code."""
    handle.put_file(contract.INPUT_DIR, contract.SCENARIO_FILE_NAME, scenario)
    body = {"env": {contract.ENV_SCENARIO_TIMEOUT: "60", contract.ENV_DEADLINE: "700"}}
    with httpx.Client(trust_env=False, timeout=5) as http:
        resp = http.post(
            handle.base_url + routes.ASSIGN,
            json=body,
            headers={"Authorization": f"Bearer {handle.adapter_token}"},
        )
        return resp.status_code
