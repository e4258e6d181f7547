"""Real Gaia2 format in real containers: instance names, two instances of one class, noise.

tests/data/real_format_two_messengers.json has what real rows have (tests/data/make_real_format.py):
`Messages` and `Chats` (both MessagingAppV2), `Contacts` and `InternalContacts`, `duration: null`,
hints, tags and augmentation data. The oracle must pass it as ARE would, with and without ARE's
noise mode, and everything recorded must name the instance, never the class.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

SCENARIO = Path(__file__).resolve().parents[1] / "data" / "real_format_two_messengers.json"


def _events(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()]


def test_oracle_passes_and_everything_names_instances(images, tmp_path: Path):
    result = run_scenario(SCENARIO, ORACLE_IMAGE, tmp_path)
    out = tmp_path / result.scenario_id
    assert (result.status, result.success) == ("completed", True), (
        result.error,
        (out / "daemon.log").read_text(),
    )
    events = _events(out)
    env = [e for e in events if e["kind"] == "env_event" and e["event_type"] == "ENV"]
    assert [(e["event_id"], e["app"], e["function"]) for e in env] == [
        ("env-leo-asks", "Chats", "create_and_add_message")
    ]
    calls = [(e["app"], e["function"], e["tool"]) for e in events if e["kind"] == "tool_call"]
    assert calls == [
        ("Chats", "send_message", "Chats__send_message"),
        ("Messages", "send_message", "Messages__send_message"),
        ("AgentUserInterface", "send_message_to_user", "AgentUserInterface__send_message_to_user"),
    ]
    assert not any("MessagingAppV2" == e.get("app") or "ContactsApp" == e.get("app") for e in events)


# Lists what the agent is offered with noise on, over both surfaces, then stops (judged: a fail).
PROBE = r"""
import json, os, subprocess, urllib.request
tools = json.load(urllib.request.urlopen(os.environ["GAIA2_TOOLS_URL"] + "/tools"))["tools"]
by = {t["name"]: t for t in tools}
print("TOOLS", json.dumps(sorted(by)))
print("DESC", by["Chats__post_chat_message"]["description"])
print("APP", by["Chats__post_chat_message"]["app"], by["Chats__post_chat_message"]["function"])
print("CLI-CHATS", subprocess.run(["chats", "--help"], capture_output=True, text=True).stdout)
print("CLI-MESSAGES", subprocess.run(["messages", "--help"], capture_output=True, text=True).stdout)
print("CLI-CONTACTS", subprocess.run(["internal-contacts", "--help"], capture_output=True, text=True).stdout)
"""


def test_noise_shows_augmented_tools_to_the_agent(images, tmp_path: Path):
    command = f"/opt/gaia2/venv/bin/python3 -c {shlex.quote(PROBE)}"
    result = run_scenario(
        SCENARIO, ORACLE_IMAGE, tmp_path, extra_env={"GAIA2_NOISE": "1", "GAIA2_AGENT_COMMAND": command}
    )
    log = (tmp_path / result.scenario_id / "agent.log").read_text()
    tools = json.loads(next(line for line in log.splitlines() if line.startswith("TOOLS "))[6:])
    # Renamed as the scenario's tool_names_mapping says, per instance; unmapped tools keep their name.
    assert "Chats__post_chat_message" in tools and "Messages__deliver_text" in tools
    assert "Chats__send_message" not in tools and "Messages__send_message" not in tools
    assert "Chats__recent_threads" in tools and "Messages__list_recent_conversations" in tools
    assert "Contacts__get_contacts" in tools and "InternalContacts__get_contacts" in tools
    assert "AgentUserInterface__send_message_to_user" in tools  # ARE never renames AUI / SystemApp
    assert "DESC Posts a chat message to one person (noise-mode description)." in log
    assert "APP Chats post_chat_message" in log
    # The commands show the renamed tools by their public names (Meta's names would give them away).
    chats_help = log.split("CLI-CHATS", 1)[1].split("CLI-MESSAGES", 1)[0]
    assert "post-chat-message" in chats_help and "  send-message " not in chats_help
    assert "deliver-text" in log.split("CLI-MESSAGES", 1)[1].split("CLI-CONTACTS", 1)[0]
    assert "get-contacts" in log.split("CLI-CONTACTS", 1)[1]
    assert result.success is False  # the probe did nothing: judged, not an infrastructure error


def test_oracle_passes_with_noise(images, tmp_path: Path):
    result = run_scenario(SCENARIO, ORACLE_IMAGE, tmp_path, extra_env={"GAIA2_NOISE": "1"})
    out = tmp_path / result.scenario_id
    assert (result.status, result.success) == ("completed", True), (
        result.error,
        (out / "agent.log").read_text(),
    )
    ok_calls = [
        (e["app"], e["function"], e["tool"]) for e in _events(out) if e["kind"] == "tool_call" and e["ok"]
    ]
    assert ("Chats", "send_message", "Chats__post_chat_message") in ok_calls
    assert ("Messages", "send_message", "Messages__deliver_text") in ok_calls
    # ARE's random ENV events (EnvEventsConfig, from the scenario's augmentation data) fired too.
    noise = [
        e for e in _events(out) if e["kind"] == "env_event" and e["event_id"].startswith("env_expansion_")
    ]
    assert noise and all(e["ok"] for e in noise), noise
    noise_texts = {"Traffic is bad today.", "Did you see the game?", "Bought bread.", "Call me later."}
    assert {e["args"]["content"] for e in noise} <= noise_texts
    # Re-judged offline from ARE's trace (ARE prepares it again with its noise configs): the same verdict.
    judged = subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", "judge", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=SCENARIO.parents[2],
    )
    rejudged = json.loads((out / "rejudged.json").read_text())
    assert (judged.returncode, rejudged["success"], rejudged["error"]) == (0, True, None), judged.stderr[
        -2000:
    ]
