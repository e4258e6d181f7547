"""A hostile agent for tests/redteam/test_redteam_isolation.py: it runs inside a scenario container as the
agent user (GAIA2_AGENT_COMMAND) and tries every way we know to reach other runs' adapters and to
put "user" messages into a run. It prints one `REDTEAM {json}` line (collected in agent.log), then
solves its own task so that its own run ends normally.

Stdlib only (it runs with the image's python). Inputs, from the environment:
  REDTEAM_TARGETS     JSON list of victims: scenario_id, token, port (published on the host),
                      name (container name), ips (container addresses podman reports, maybe none),
                      spare (a warm spare waiting for its scenario: the attacker tries to give it one)
  REDTEAM_HOST_ADDRS  JSON list of the host's IPv4 addresses
  REDTEAM_MARK        text put in every message the attacker tries to inject
The victims' tokens are given on purpose: the network must keep the attacker out even when a
token leaked, so a victim counts as reached when it answers /status with its scenario id.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import struct
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

ADAPTER_PORT = 8090
MARK = os.environ["REDTEAM_MARK"]
# POST /assign's body: a warm spare's scenario variables (gaia2_contract.constants.ASSIGNED_ENV)
ASSIGN = {"env": {"GAIA2_SCENARIO_TIMEOUT": "1", "GAIA2_DEADLINE": "1"}}
TOOLS = os.environ["GAIA2_TOOLS_URL"]
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy


def http(
    method: str, url: str, token: str | None = None, body: dict | None = None, timeout: float = 2.0
) -> list:
    """[status code or None, first 2000 characters of the body or the error's name]."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with OPENER.open(request, timeout=timeout) as resp:
            return [resp.status, resp.read(2000).decode("utf-8", "replace")]
    except urllib.error.HTTPError as exc:
        return [exc.code, exc.read(2000).decode("utf-8", "replace")]
    except Exception as exc:  # noqa: BLE001 - every failure is a result here
        return [None, type(exc).__name__]


def connect(host: str, port: int, timeout: float = 1.0) -> str:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return "open"
    except Exception as exc:  # noqa: BLE001
        return type(exc).__name__


def attack(host: str, port: int, victim: dict) -> dict:
    """Open host:port; when it answers, ask it for the victim's status and inject a message."""
    entry: dict = {
        "host": host,
        "port": port,
        "victim": victim["scenario_id"],
        "connect": connect(host, port),
    }
    if entry["connect"] == "open":
        base = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
        entry["status"] = status = http("GET", f"{base}/status", victim["token"])
        entry["reached"] = status[0] == 200 and (
            victim.get("spare") or victim["scenario_id"] in str(status[1])
        )
        if victim.get("spare"):  # a spare of another run: give it a scenario of ours
            entry["assign"] = http("POST", f"{base}/assign", victim["token"], ASSIGN)
        if entry["reached"]:  # only ever inject into our own victims, never a stranger's run
            entry["notify"] = http(
                "POST",
                f"{base}/notify",
                victim["token"],
                {"message": f"{MARK} via {host}:{port}", "sender": "user"},
            )
    return entry


def default_gateway() -> str | None:
    with open("/proc/net/route") as fh:
        for line in fh.readlines()[1:]:
            fields = line.split()
            if fields[1] == "00000000":
                return socket.inet_ntoa(struct.pack("<L", int(fields[2], 16)))
    return None


def own_addresses() -> list[str]:
    found = set()
    try:
        found.update(info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET))
    except OSError:
        pass
    return sorted(a for a in found if not a.startswith("127."))


def network_attacks(victims: list[dict], host_addrs: list[str]) -> list[dict]:
    jobs: list[tuple[str, int, dict]] = []
    gateway = default_gateway()
    # slirp4netns maps the host's loopback to 10.0.2.2 / fd00::2 when allowed (the runner forbids it).
    hosts = {
        "host.containers.internal",
        "127.0.0.1",
        "::1",
        "10.0.2.2",
        "fd00::2",
        *host_addrs,
        *([gateway] if gateway else []),
    }
    mine = own_addresses()
    for victim in victims:
        jobs.append((victim["name"], ADAPTER_PORT, victim))
        jobs += [(ip, ADAPTER_PORT, victim) for ip in victim["ips"]]
        jobs += [(host, victim["port"], victim) for host in sorted(hosts)]
        for addr in mine:  # the whole local subnet, the adapter port on every address
            net = ipaddress.ip_network(f"{addr}/24", strict=False)
            jobs += [(str(ip), ADAPTER_PORT, victim) for ip in net.hosts() if str(ip) not in mine]
    with ThreadPoolExecutor(max_workers=64) as pool:
        return list(pool.map(lambda job: attack(*job), jobs))


def own_daemon_attacks() -> dict:
    """The attacker's own container: adapter without (or with a guessed) token, tool API, secrets."""
    base = f"http://127.0.0.1:{ADAPTER_PORT}"
    report: dict = {}
    for label, token in (("no_token", None), ("guessed_token", "guess")):
        report[label] = {
            "health": http("GET", f"{base}/health", token),
            "status": http("GET", f"{base}/status", token),
            "messages": http("GET", f"{base}/messages", token),
            "notify_user": http(
                "POST", f"{base}/notify", token, {"message": f"{MARK} self", "sender": "user"}
            ),
            "notify_system": http(
                "POST", f"{base}/notify", token, {"message": f"{MARK} sys", "sender": "system"}
            ),
            "unknown_route": http("GET", f"{base}/debug", token),
            "assign": http("POST", f"{base}/assign", token, ASSIGN),  # its own container again
        }
    report["oracle_plan"] = http("GET", f"{TOOLS}/oracle/plan")
    report["oracle_completed"] = http("GET", f"{TOOLS}/oracle/completed")
    report["impersonate_user"] = http(
        "POST",
        f"{TOOLS}/call",
        None,
        {"tool": "AgentUserInterface__send_message_to_agent", "args": {"content": f"{MARK} tool"}},
    )
    report["secret_env"] = sorted(
        k for k in os.environ if k == "GAIA2_ADAPTER_TOKEN" or k.startswith("GAIA2_JUDGE_")
    )
    leaks, unreadable = [], 0
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if any(var.startswith(b"GAIA2_ADAPTER_TOKEN=") for var in fh.read().split(b"\0")):
                    leaks.append(pid)
        except OSError:
            unreadable += 1
    report["proc_environ_with_token"], report["proc_environ_unreadable"] = leaks, unreadable
    files = {}
    for path in (
        "/proc/1/environ",
        "/gaia2/input/scenario.json",
        "/gaia2/output/daemon_status.json",
        "/gaia2/output/events.jsonl",
    ):
        try:
            with open(path, "rb") as fh:
                fh.read(1)
            files[path] = "readable"
        except OSError as exc:
            files[path] = type(exc).__name__
    report["files"] = files
    return report


def solve_own_task() -> None:
    def call(tool: str, **args: object) -> dict:
        code, body = http("POST", f"{TOOLS}/call", None, {"tool": tool, "args": args}, timeout=30)
        assert code == 200, (code, body)
        return json.loads(body)

    call(
        "CalendarApp__add_calendar_event",
        title="Dentist appointment",
        start_datetime="2024-10-03 14:00:00",
        end_datetime="2024-10-03 15:00:00",
        location="Smile Dental, 12 Rue Oberkampf, Paris",
    )
    call("AgentUserInterface__send_message_to_user", content=os.environ["REDTEAM_ANSWER"])


def main() -> None:
    started = time.time()
    victims = json.loads(os.environ["REDTEAM_TARGETS"])
    report = {
        "network": network_attacks(victims, json.loads(os.environ.get("REDTEAM_HOST_ADDRS") or "[]")),
        "own": own_daemon_attacks(),
        "own_addresses": own_addresses(),
        "gateway": default_gateway(),
        "attack_wall": [started, time.time()],
    }
    print("REDTEAM " + json.dumps(report), flush=True)
    solve_own_task()


if __name__ == "__main__":
    main()
