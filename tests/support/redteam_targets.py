"""What the red-team tests hand their attacker (tests/support/redteam_attacker.py): a victim
container as an attacker would want it described (name, addresses, published port, its token as if
leaked), the host's addresses, and the spares of the warm pool to aim at."""

from __future__ import annotations

import json
import shlex
import subprocess
import time
from pathlib import Path

import httpx

from gaia2_contract import constants as contract
from gaia2_contract import routes
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from gaia2_runner.sandbox.ownership import LABEL_SCENARIO_ID
from gaia2_runner.sandbox.warm_pool import WARM_SCENARIO_LABEL

ATTACKER = (Path(__file__).resolve().parent / "redteam_attacker.py").read_text()
# What the attacker answers after its attack (its task: demo_calendar_add_event).
ANSWER = (
    "Done: 'Dentist appointment' is in your calendar on 2024-10-03 from 14:00 to 15:00 "
    "at Smile Dental, 12 Rue Oberkampf, Paris."
)


def attacker_env(victims: list[dict], mark: str) -> dict[str, str]:
    """The attacker as a run's agent (GAIA2_AGENT_COMMAND), aimed at `victims`."""
    return {
        "GAIA2_AGENT_COMMAND": f"/opt/gaia2/venv/bin/python3 -c {shlex.quote(ATTACKER)}",
        "REDTEAM_TARGETS": json.dumps(victims),
        "REDTEAM_HOST_ADDRS": json.dumps(host_ipv4_addresses()),
        "REDTEAM_MARK": mark,
        "REDTEAM_ANSWER": ANSWER,
    }


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


def detached_spare(sandbox, scenario: bytes):
    """(its pool, the cold run that made it, a spare): one oracle run through a pool of one, whose
    spare for the next run is then left to the caller (the sandbox starts cold again); the pool
    keeps it alive until the caller closes it."""
    from gaia2_runner.execution.container_env import container_env

    sandbox.use_warm_pool(1, lambda: 1)
    try:
        env = container_env(None, scenario_timeout=120, runtime="oracle")
        first = sandbox.run_scenario_container(ORACLE_IMAGE, scenario, env, "first", warm=True)
        spare = wait_for_spare(sandbox)
    finally:
        pool, sandbox.pool = sandbox.pool, None
    return pool, first, spare


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
