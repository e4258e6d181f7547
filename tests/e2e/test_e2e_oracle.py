"""End to end in real podman: the images are built, every demo scenario runs in its own container.

Our verdict must equal ARE's: the oracle succeeds on every demo scenario, a replay with one
action dropped fails, and infrastructure problems (crash, timeout, agent runtime dying, a scenario
ARE rejects) give `success: null` with the reason, never a verdict.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from container_probe import daemon_status, exec_in, output_dir_label, running
from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
DEMO_DIR = REPO / "examples" / "scenarios"
DEMOS = sorted(DEMO_DIR.glob("*.json"))
DATA = REPO / "tests" / "data"  # ARE exports kept with the tests

EXPECTED_FILES = {
    "result.json",
    "daemon_status.json",
    "events.jsonl",
    "agent_response.txt",
    "container.log",
    "daemon.log",
    "agent.log",
}


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def events(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()]


def test_demo_set_is_complete():
    assert len(DEMOS) >= 6
    apps = " ".join(p.read_text() for p in DEMOS)
    for app in ("CalendarApp", "EmailClientV2", "MessagingAppV2", "ContactsApp", "CabApp", "ShoppingApp"):
        assert app in apps, f"no demo scenario uses {app}"


@pytest.mark.parametrize("scenario", DEMOS, ids=[p.stem for p in DEMOS])
def test_oracle_passes_every_demo(scenario: Path, images, tmp_path: Path):
    result = run_scenario(scenario, ORACLE_IMAGE, tmp_path)
    out = tmp_path / result.scenario_id
    assert (result.status, result.success, result.error) == ("completed", True, None), result.failure_reasons
    assert EXPECTED_FILES <= {p.name for p in out.iterdir()}
    saved = read_json(out / "result.json")
    assert saved["success"] is True and saved["scenario_id"] == scenario.stem
    assert saved["image"] == ORACLE_IMAGE and saved["runtime"] == "oracle"
    for phase in ("start_s", "ready_s", "run_s", "collect_s"):
        assert saved["timings"][phase] > 0, phase
    log = events(out)
    calls = [e for e in log if e["kind"] == "tool_call"]
    assert calls and all(c["ok"] for c in calls)
    assert saved["agent_actions"] == len(calls)
    assert calls[-1]["function"] == "send_message_to_user"
    assert (out / "agent_response.txt").read_text() == calls[-1]["args"]["content"]
    judged = [e for e in log if e["kind"] == "judgment"]
    assert judged and all(j["success"] for j in judged)
    status = read_json(out / "daemon_status.json")
    assert len(status["turns"]) == status["nb_turns"]


def test_multi_turn_and_env_events_are_delivered(images, tmp_path: Path):
    result = run_scenario(DEMO_DIR / "demo_multi_turn_email.json", ORACLE_IMAGE, tmp_path)
    out = tmp_path / result.scenario_id
    assert result.success is True
    log = events(out)
    user_msgs = [e for e in log if e["kind"] == "notification" and e["sender"] == "user"]
    assert len(user_msgs) == 2, "the second turn's user message reaches the agent after turn 1"
    assert [t["turn_number"] for t in result.turns] == [1, 2]

    result = run_scenario(DEMO_DIR / "demo_env_message_pickup.json", ORACLE_IMAGE, tmp_path)
    fired = [
        e
        for e in events(tmp_path / result.scenario_id)
        if e["kind"] == "env_event" and e["event_type"] == "ENV"
    ]
    assert fired, "the ENV event fired during the run"
    assert result.success is True


@pytest.mark.parametrize("scenario", ["demo_calendar_add_event", "demo_multi_turn_email"])
def test_broken_oracle_is_judged_a_failure(scenario: str, images, tmp_path: Path):
    result = run_scenario(
        DEMO_DIR / f"{scenario}.json",
        ORACLE_IMAGE,
        tmp_path,
        extra_env={"GAIA2_ORACLE_DROP_ACTION": "first"},
    )
    assert result.success is False and result.status in ("completed", "failed")
    assert result.error is None
    assert any("count" in reason for reason in result.failure_reasons), result.failure_reasons
    saved = read_json(tmp_path / scenario / "result.json")
    assert saved["success"] is False and saved["judgment"]["success"] is False


# The oracle fast-forwards (about a second per scenario); these tests need one that waits in real time.
REALTIME = {"GAIA2_ORACLE_REALTIME": "1"}


def test_container_that_dies_is_an_infrastructure_error(images, sandbox, tmp_path: Path):
    scenario = DEMO_DIR / "demo_env_message_pickup.json"  # waits for an ENV event: long enough to kill

    # Our own container (by its output directory: another run's pickup may share this host), killed
    # once its daemon says the scenario runs: the ENV event is 5 s of real time away.
    label = output_dir_label(tmp_path / "demo_env_message_pickup")

    def kill_when_running() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for c in running(sandbox, label):
                if daemon_status(sandbox, c.id) == "running":
                    sandbox.driver.client.containers.get(c.id).kill(signal="SIGKILL")  # podman-only test
                    return
            time.sleep(0.2)

    killer = threading.Thread(target=kill_when_running)
    killer.start()
    result = run_scenario(scenario, ORACLE_IMAGE, tmp_path, sandbox=sandbox, extra_env=REALTIME)
    killer.join()
    assert result.success is None and result.status == "crashed"
    assert "exited with code" in result.error
    out = tmp_path / result.scenario_id
    assert read_json(out / "result.json")["status"] == "crashed"
    assert (out / "container.log").read_text().strip()
    assert not sandbox.list_labelled(label)


def test_timeout_is_judged_on_what_was_done(images, tmp_path: Path):
    """Still working when the time is up: judged on what the agent did (here: not everything)."""
    result = run_scenario(
        DEMO_DIR / "demo_env_message_pickup.json", ORACLE_IMAGE, tmp_path, timeout=3, extra_env=REALTIME
    )
    assert result.success is False and result.status == "timeout"
    assert result.error is None and "3" in result.note
    saved = read_json(tmp_path / result.scenario_id / "result.json")
    assert saved["status"] == "timeout" and saved["success"] is False
    assert (tmp_path / result.scenario_id / "daemon.log").exists()


def test_agent_runtime_crash_is_judged_not_excused(images, tmp_path: Path):
    """Giving up must never score better than failing: a crashed agent is judged (a failure)."""
    result = run_scenario(
        DEMO_DIR / "demo_calendar_add_event.json",
        ORACLE_IMAGE,
        tmp_path,
        extra_env={"GAIA2_AGENT_COMMAND": "sh -c 'echo agent broke >&2; exit 3'"},
    )
    assert result.success is False and result.status == "agent_exit"
    assert "exited with code 3" in result.note and result.error is None
    assert "agent broke" in (tmp_path / result.scenario_id / "agent.log").read_text()


def test_scenario_are_rejects_is_reported_in_one_line(images, tmp_path: Path):
    # An ARE tutorial export: valid JSON, but not a Gaia2 scenario (v1 apps, ENV event with 2 parents).
    result = run_scenario(DATA / "are_tutorial_scenario.json", ORACLE_IMAGE, tmp_path)
    assert result.success is None and result.status == "error"
    assert "ARE" in result.error and "\n" not in result.error
    assert (tmp_path / result.scenario_id / "result.json").exists()
    assert (tmp_path / result.scenario_id / "daemon.log").exists()


@pytest.mark.both_engines
def test_agent_cannot_read_the_scenario(images, sandbox):
    """The agent user must not see the answers: run `cat` as it, next to a real daemon. (On Docker
    the input directory is a volume: its mode must still keep the agent out, and it must not be a
    place the agent can write to.)"""
    handle = sandbox.run_scenario_container(
        ORACLE_IMAGE,
        (DEMO_DIR / "demo_calendar_add_event.json").read_bytes(),
        {"GAIA2_RUNTIME": "none"},
        "it-perms",
    )
    try:
        time.sleep(1)
        code, output = exec_in(sandbox, handle.id, ["cat", "/gaia2/input/scenario.json"], user="agent")
        assert code != 0 and b"Permission denied" in output, output
        code, output = exec_in(sandbox, handle.id, ["ls", "/gaia2/input"], user="agent")
        assert code != 0 and b"Permission denied" in output, output
        for place in ("/gaia2/input/x", "/gaia2/ca/x", "/gaia2/x"):
            code, output = exec_in(sandbox, handle.id, ["touch", place], user="agent")
            assert code != 0, (place, output)
    finally:
        handle.cleanup(timeout=1)
