"""The LLM agent runtime end to end: agent image, real container, fake provider on the host.

The fake server binds 0.0.0.0 on the host; containers reach it as `host.containers.internal`,
which podman writes into every container's /etc/hosts (the bridge gateway, 10.88.0.1 here) and
Docker maps to its host gateway.
The scripted "model" replays the demo scenario's oracle, so ARE's judge decides exactly.
"""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import AGENT_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

HOST = "host.containers.internal"
SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_calendar_add_event.json"
ANSWER = (
    "Done: 'Dentist appointment' is in your calendar on 2024-10-03 from 14:00 to 15:00 "
    "at Smile Dental, 12 Rue Oberkampf, Paris."
)
EVENT = {
    "title": "Dentist appointment",
    "start_datetime": "2024-10-03 14:00:00",
    "end_datetime": "2024-10-03 15:00:00",
    "location": "Smile Dental, 12 Rue Oberkampf, Paris",
}
ADD = {"tool_calls": [{"name": "CalendarApp__add_calendar_event", "arguments": EVENT}]}
SEND = {
    "tool_calls": [{"name": "AgentUserInterface__send_message_to_user", "arguments": {"content": ANSWER}}]
}
SECRET = "sk-test-SECRET-XYZ"
FAST_RETRIES = json.dumps({"max_retries": 2, "retry_base_s": 0.2})


@pytest.fixture(scope="module")
def agent_image(images):
    """`images` builds every runner image, the agent image included."""
    return AGENT_IMAGE


def run(sandbox, image, out: Path, provider: str, base_url: str, key: str = "sk-test", options: str = "{}"):
    env = {
        "GAIA2_AGENT_PROVIDER": provider,
        "GAIA2_AGENT_MODEL": "fake-model",
        "GAIA2_AGENT_BASE_URL": base_url,
        "GAIA2_AGENT_API_KEY": key,
        "GAIA2_AGENT_OPTIONS": options,
    }
    result = run_scenario(SCENARIO, image, out, sandbox=sandbox, extra_env=env, timeout=120)
    return result, out / result.scenario_id


def tool_calls(out: Path) -> list[dict]:
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()]
    return [e for e in events if e["kind"] == "tool_call"]


def trace(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]


@pytest.mark.both_engines
def test_openai_agent_solves_the_scenario_and_never_leaks_the_key(sandbox, agent_image, fake, tmp_path):
    fake.set_script({"chat": [ADD, SEND]})
    result, out = run(
        sandbox, agent_image, tmp_path / "out", "openai", f"http://{HOST}:{fake.port}/v1", key=SECRET
    )
    assert (result.status, result.success) == ("completed", True), (
        result.error,
        (out / "agent.log").read_text(),
    )
    assert [c["function"] for c in tool_calls(out)] == ["add_calendar_event", "send_message_to_user"]
    lines = trace(out)
    assert [line["seq"] for line in lines] == [0, 1]
    assert all(
        line["type"] == "llm_call" and line["http_status"] == 200 and line["provider"] == "openai"
        for line in lines
    )
    assert lines[0]["url"] == f"http://{HOST}:{fake.port}/v1/chat/completions"
    assert lines[0]["usage"]["input_tokens"] > 0 and "raw_response" in lines[0]
    system = lines[0]["request"]["messages"][0]["content"]
    # The prompt gives the simulated time when the agent starts; the clock runs in real time, so
    # a slow start may already be a second or two past the scenario's 09:00:00.
    assert re.search(r"2024-10-01 09:00:[0-5]\d", system), system
    assert "AgentUserInterface__send_message_to_user" in system
    # The key went out in the right header, and nowhere into the output.
    assert {r["headers"]["authorization"] for r in fake.llm_requests()} == {f"Bearer {SECRET}"}
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path


def test_anthropic_agent_plain_text_answer_is_sent(sandbox, agent_image, fake, tmp_path):
    fake.set_script({"anthropic": [ADD, {"text": ANSWER}]})
    result, out = run(sandbox, agent_image, tmp_path, "anthropic", f"http://{HOST}:{fake.port}/v1")
    assert (result.status, result.success) == ("completed", True), (
        result.error,
        (out / "agent.log").read_text(),
    )
    assert (out / "agent_response.txt").read_text() == ANSWER
    assert {r["headers"]["x-api-key"] for r in fake.llm_requests()} == {"sk-test"}
    assert trace(out)[1]["request"]["messages"][-1]["content"][0]["type"] == "tool_result"


def test_gemini_agent_retries_429_then_solves(sandbox, agent_image, fake, tmp_path):
    fake.set_script({"gemini": [{"status": 429, "retry_after": 1}, ADD, SEND]})
    result, out = run(
        sandbox, agent_image, tmp_path, "gemini", f"http://{HOST}:{fake.port}/v1beta", options=FAST_RETRIES
    )
    assert (result.status, result.success) == ("completed", True), (
        result.error,
        (out / "agent.log").read_text(),
    )
    requests = fake.llm_requests()
    assert len(requests) == 3 and requests[1]["time"] - requests[0]["time"] >= 0.9  # Retry-After: 1 honoured
    assert requests[0]["path"] == "/v1beta/models/fake-model:generateContent"
    assert trace(out)[0]["attempts"] == 2


def test_wrong_start_time_is_judged_a_failure(sandbox, agent_image, fake, tmp_path):
    wrong = {
        "tool_calls": [
            {
                "name": "CalendarApp__add_calendar_event",
                "arguments": {**EVENT, "start_datetime": "2024-10-03 15:00:00"},
            }
        ]
    }
    fake.set_script({"chat": [wrong, SEND]})
    result, out = run(sandbox, agent_image, tmp_path, "openai-compat", f"http://{HOST}:{fake.port}/v1")
    assert result.status in ("completed", "failed") and result.success is False, (result.error, result.status)


def test_provider_down_is_an_infrastructure_error(sandbox, agent_image, fake, tmp_path):
    fake.set_script({"chat": [{"status": 503, "repeat": 10}], "preflight": [{"status": 503, "repeat": 10}]})
    result, out = run(
        sandbox, agent_image, tmp_path, "openai", f"http://{HOST}:{fake.port}/v1", options=FAST_RETRIES
    )
    assert (result.status, result.success) == ("error", None)
    assert "exited with code 3" in result.error
    assert f"provider error: HTTP 503 from http://{HOST}:{fake.port}/v1/chat/completions" in result.error
    assert trace(out)[0]["http_status"] == 503


def test_unreachable_provider_is_an_infrastructure_error(sandbox, agent_image, tmp_path):
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        port = s.getsockname()[1]
    result, _ = run(
        sandbox, agent_image, tmp_path, "anthropic", f"http://{HOST}:{port}/v1", options=FAST_RETRIES
    )
    assert (result.status, result.success) == ("error", None)
    assert result.error.startswith("the provider never answered (") and "ConnectError" in result.error


SLOW_ANSWER_S = 75  # a CPU model's first answer; the default options' attempts were 67.5 s at 600 s


def test_a_slow_model_is_asked_once_and_its_answer_used_under_a_600s_limit(
    sandbox, agent_image, fake, tmp_path
):
    """Under --timeout 600 one attempt may wait 450 s (budget.py): a model answering in 75 s is
    waited for, never asked the same thing again while it computes (a one-slot server would
    compute it twice), and its answer is the run's first step."""
    fake.set_script({"chat": [{**ADD, "delay_s": SLOW_ANSWER_S}, SEND]})
    env = {
        "GAIA2_AGENT_PROVIDER": "openai-compat",
        "GAIA2_AGENT_MODEL": "fake-model",
        "GAIA2_AGENT_BASE_URL": f"http://{HOST}:{fake.port}/v1",
    }
    result = run_scenario(SCENARIO, agent_image, tmp_path, sandbox=sandbox, extra_env=env, timeout=600)
    out = tmp_path / result.scenario_id
    assert (result.status, result.success) == ("completed", True), result.error
    assert len(fake.llm_requests()) == 2  # the slow call once, then the final message
    first = trace(out)[0]
    assert (
        first["attempts"] == 1 and first["latency_ms"] >= SLOW_ANSWER_S * 1000 and not first.get("error")
    ), first
    assert [c["function"] for c in tool_calls(out)] == ["add_calendar_event", "send_message_to_user"]
