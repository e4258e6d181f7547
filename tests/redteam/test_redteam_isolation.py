"""Red team: a hostile agent must not reach other runs nor put "user" messages into any run.

Two oracle victims run at the same time as the attacker: a sibling started by this process
through the same sandbox (as pass@k siblings are) and one started by a separate
`python -m gaia2_runner run`. Their scenario waits for an ENV event, so they are still running
while the attacker (tests/support/redteam_attacker.py, as GAIA2_AGENT_COMMAND) tries their container names,
addresses, its whole local subnet, and every host address on their published ports, with their
tokens (as if leaked), then its own daemon's adapter without a token.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from container_probe import running
from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.adapter import AdapterClient
from gaia2_runner.sandbox.container_handle import ContainerHandle
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from gaia2_runner.sandbox.ownership import LABEL_SCENARIO_ID
from redteam_targets import attacker_env, describe

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
DEMOS = REPO / "examples" / "scenarios"
MARK = "REDTEAM-INJECTED-7f3a"
# The victims' oracle waits this long (simulated = wall seconds) for the ENV event it depends on:
# long enough for the whole attack to happen while they run.
ENV_DELAY_S = 75.0


def victim_scenario(tmp_path: Path, scenario_id: str) -> Path:
    doc = json.loads((DEMOS / "demo_env_message_pickup.json").read_text())
    doc["metadata"]["definition"]["scenario_id"] = scenario_id
    for event in doc["events"]:
        if event["event_type"] == "ENV":
            event["event_relative_time"] = ENV_DELAY_S
    path = tmp_path / f"{scenario_id}.json"
    path.write_text(json.dumps(doc))
    return path


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    pytest.fail(f"timed out waiting for {what}")


def result_doc(root: Path, scenario_id: str) -> dict:
    found = [p for p in root.rglob("result.json") if p.parent.name == scenario_id]
    assert len(found) == 1, found
    return json.loads(found[0].read_text())


@pytest.mark.both_engines
def test_hostile_agent_reaches_no_other_run_and_injects_nothing(images, sandbox, tmp_path, monkeypatch):
    handles: dict[str, ContainerHandle] = {}
    original = sandbox.run_scenario_container

    def recording(*args, **kwargs):
        handle = original(*args, **kwargs)
        handles[args[3]] = handle  # scenario_id
        return handle

    monkeypatch.setattr(sandbox, "run_scenario_container", recording)

    # Victim 1: a sibling in this process, same sandbox.
    sibling_out = tmp_path / "sibling"
    sibling_file = victim_scenario(tmp_path, "redteam_victim_sibling")
    # The victims' oracle waits in real time (it fast-forwards otherwise).
    sibling = threading.Thread(
        target=run_scenario,
        args=(sibling_file, ORACLE_IMAGE, sibling_out),
        kwargs={"sandbox": sandbox, "extra_env": {"GAIA2_ORACLE_REALTIME": "1"}},
    )
    sibling.start()
    # Victim 2: a separate invocation of the runner, with its own engine connection.
    other_out = tmp_path / "other"
    other = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gaia2_runner",
            "run",
            "--scenario",
            str(victim_scenario(tmp_path, "redteam_victim_other")),
            "--image",
            ORACLE_IMAGE,
            "--output-dir",
            str(other_out),
            "--env",
            "GAIA2_ORACLE_REALTIME=1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ},
    )
    try:
        sib = wait_for(lambda: handles.get("redteam_victim_sibling"), 120, "the sibling victim's container")
        oth = wait_for(
            lambda: running(sandbox, f"{LABEL_SCENARIO_ID}=redteam_victim_other"),
            120,
            "the other victim's container",
        )[0]
        victims = [
            describe(sandbox, sib.id, "redteam_victim_sibling"),
            describe(sandbox, oth.id, "redteam_victim_other"),
        ]
        clients = [AdapterClient(f"http://127.0.0.1:{v['port']}", v["token"]) for v in victims]
        for client in clients:
            client.wait_healthy(120)
            assert client.get_status()["status"] == "running"

        attacker = run_scenario(
            DEMOS / "demo_calendar_add_event.json",
            ORACLE_IMAGE,
            tmp_path / "attacker",
            sandbox=sandbox,
            extra_env=attacker_env(victims, MARK),
        )
        # The whole attack happened while both victims were running.
        for client in clients:
            assert client.get_status()["status"] == "running", "victim finished before the attack ended"
            client.close()
    finally:
        sibling.join(timeout=300)
        try:
            other_log = other.communicate(timeout=300)[0]
        except subprocess.TimeoutExpired:
            other.kill()
            other_log = other.communicate()[0]

    out = tmp_path / "attacker" / attacker.scenario_id
    agent_log = (out / "agent.log").read_text()
    lines = [line for line in agent_log.splitlines() if line.startswith("REDTEAM ")]
    assert len(lines) == 1, agent_log[-3000:]
    report = json.loads(lines[0][len("REDTEAM ") :])

    # 1. Network: no victim answered, through any address; hence nothing was injected.
    tried = report["network"]
    assert len(tried) > 2 * 254, "the attacker scanned its subnet for both victims"
    # A port may look open when something outside answers (a sandbox's egress proxy does), so what
    # counts is whether an adapter answered: 200 for the victim's token, or a daemon's 401.
    answered = [
        t
        for t in tried
        if t.get("reached")
        or t.get("notify")
        or (t.get("status") and (t["status"][0] in (200, 401) or "adapter token" in t["status"][1]))
    ]
    assert answered == [], answered
    published = {t["host"] for t in tried if t["port"] != 8090}
    assert published >= {"host.containers.internal", "10.0.2.2", "fd00::2", "127.0.0.1", report["gateway"]}
    by_name = [t for t in tried if t["host"] in {v["name"] for v in victims}]
    assert len(by_name) == 2 and all(t["connect"] != "open" for t in by_name), by_name

    # 2. Its own adapter: only a bare /health answers without the token; no secret is visible.
    own = report["own"]
    for attempt in ("no_token", "guessed_token"):
        calls = own[attempt]
        assert calls["health"] == [200, '{"status": "ok"}'], calls["health"]
        for route in ("status", "messages", "notify_user", "notify_system", "unknown_route", "assign"):
            assert calls[route][0] == 401, (attempt, route, calls[route])
    assert own["oracle_plan"][0] == 403 and own["oracle_completed"][0] == 403
    assert own["impersonate_user"][0] == 404, own["impersonate_user"]
    assert own["secret_env"] == [] and own["proc_environ_with_token"] == []
    assert own["proc_environ_unreadable"] >= 1
    assert all(v == "PermissionError" for v in own["files"].values()), own["files"]

    # 3. Every run ended as it would have without the attacker, and no injected text is anywhere.
    assert (attacker.status, attacker.success) == ("completed", True), (attacker.error, agent_log[-2000:])
    assert other.returncode == 0, other_log
    for root, scenario_id in ((sibling_out, "redteam_victim_sibling"), (other_out, "redteam_victim_other")):
        result = result_doc(root, scenario_id)
        assert (result["status"], result["success"]) == ("completed", True), result
    victim_dirs = [p.parent for root in (sibling_out, other_out) for p in root.rglob("events.jsonl")]
    assert len(victim_dirs) == 2
    for run_dir in [out, *victim_dirs]:
        for name in ("events.jsonl", "daemon_status.json", "agent_response.txt", "daemon.log"):
            assert MARK not in (run_dir / name).read_text(), run_dir / name
    notes = [
        json.loads(line)
        for line in (out / "events.jsonl").read_text().splitlines()
        if '"notification"' in line
    ]
    assert notes and all(n["source"] == "scenario" for n in notes), notes  # none came through /notify

    # 4. The token is a secret: never in what the runner writes.
    tokens = [v["token"] for v in victims] + [handles[attacker.scenario_id].adapter_token]
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".log", ".txt", ".html"):
            text = path.read_text(errors="replace")
            assert not any(token in text for token in tokens), path
