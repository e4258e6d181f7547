"""The relay's trace in a real container: a scripted agent (uid 1000, GAIA2_AGENT_COMMAND) calls
the fake provider on the host through the relay ($GAIA2_AGENT_BASE_URL) in each wire format,
streamed, and then solves the demo scenario. The run's trace.jsonl is the relay's record: every
request, the raw bytes the agent received, no key; the agent can neither alter nor replace it,
and a flood is capped while the run still ends with a verdict."""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import Path

import pytest

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.output.read.trace_parsers import parse_line
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from gaia2_runner.viewer import Site

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]

HOST = "host.containers.internal"
SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_calendar_add_event.json"
SECRET = "sk-relay-e2e-SECRET-987654"
REPLY = {"text": "Booking it.", "tool_calls": [{"name": "shell", "arguments": {"cmd": "calendar add-event"}}]}
ANSWER = (
    "Done: 'Dentist appointment' is in your calendar on 2024-10-03 from 14:00 to 15:00 "
    "at Smile Dental, 12 Rue Oberkampf, Paris."
)

# Shared by every scripted agent: call the relay, print what came back, solve the scenario.
COMMON = r"""
import hashlib, json, os, subprocess, urllib.request, urllib.error
BASE = os.environ["GAIA2_AGENT_BASE_URL"]
KEY = os.environ["GAIA2_AGENT_API_KEY"]
HEADERS = {"Content-Type": "application/json", "Authorization": "Bearer " + KEY, "x-api-key": KEY,
           "x-goog-api-key": KEY, "Accept-Encoding": "gzip"}
def call(path, body=None, method="POST"):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data, HEADERS, method=method)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            status, raw = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    print("CALL", path.split("?")[0], status, hashlib.sha256(raw).hexdigest(), flush=True)
    return raw
def reply(text):
    subprocess.run(["/opt/gaia2/venv/bin/python", "-m", "gaia2_container.runtimes.reply", text], check=True,
                   capture_output=True)
def solve():
    subprocess.run(["calendar", "add-event", "--title", "Dentist appointment",
                    "--start-datetime", "2024-10-03 14:00:00", "--end-datetime", "2024-10-03 15:00:00",
                    "--location", "Smile Dental, 12 Rue Oberkampf, Paris"], check=True, capture_output=True)
    reply(os.environ["ANSWER"])
"""

FORMATS = (
    COMMON
    + r"""
user = "book the dentist"
call("/v1/messages", {"model": "qwen", "stream": True, "max_tokens": 99,
                      "messages": [{"role": "user", "content": user}]})
call("/v1/responses", {"model": "qwen", "stream": True, "input": user})
call("/v1beta/models/qwen:streamGenerateContent?alt=sse&key=" + KEY,
     {"contents": [{"role": "user", "parts": [{"text": user}]}]})
call("/v1/responses", {"model": "gpt-5-codex", "stream": True, "input": user})  # another model: refused, never sent
call("/v1/chat/completions", {"model": "qwen", "stream": True, "messages": [{"role": "user", "content": user}]})
call("/v1/models", method="GET")
solve()
"""
)

# The agent user attacks the record: the output directory, the daemon, and a fake trace of its own.
ATTACKS = (
    COMMON
    + r"""
import signal
# The agent echoes its own key (the run's placeholder) in a body: recorded by the relay as sent.
call("/v1/chat/completions", {"model": "qwen", "stream": True, "messages": [{"role": "user", "content": "hi " + KEY}]})
def attempt(name, fn):
    try:
        fn()
        print("ATTACK", name, "succeeded", flush=True)
    except Exception as exc:
        print("ATTACK", name, "denied", type(exc).__name__, flush=True)
attempt("append", lambda: open("/gaia2/output/trace.jsonl", "a").write('{"type": "llm_call", "forged": 1}\n'))
attempt("truncate", lambda: open("/gaia2/output/trace.jsonl", "w").close())
attempt("delete", lambda: os.remove("/gaia2/output/trace.jsonl"))
attempt("list", lambda: os.listdir("/gaia2/output"))
attempt("rename", lambda: os.rename("/gaia2/output", "/gaia2/out2"))
attempt("kill-daemon", lambda: os.kill(1, signal.SIGKILL))
fake = {"seq": 0, "type": "llm_call", "url": "x", "request": {"forged": True}, "raw_response": "FORGED"}
with open(os.path.expanduser("~/trace.jsonl"), "w") as fh:
    fh.write(json.dumps(fake) + "\n")
solve()
"""
)

FLOOD = (
    COMMON
    + r"""
pad = "x" * (4 << 20)
for n in range(20):  # 80 MiB of bodies: more than the 64 MiB the record keeps
    call("/v1/chat/completions", {"model": "qwen", "n": n, "messages": [{"role": "user", "content": pad}]})
for n in range(300):
    call("/v1/chat/completions", {"model": "qwen", "n": n, "messages": [{"role": "user", "content": "hi"}]})
solve()
"""
)

# Some harnesses answer the user with their provider's error text (OpenClaw exits 0 with it).
ERROR_AS_ANSWER = (
    COMMON
    + r"""
call("/v1/chat/completions", {"model": "qwen", "messages": [{"role": "user", "content": "hi"}]})
call("/v1/chat/completions", {"model": "qwen", "messages": [{"role": "user", "content": "hi"}]})
subprocess.run(["calendar", "add-event", "--title", "Dentist appointment", "--start-datetime",
                "2024-10-03 14:00:00", "--end-datetime", "2024-10-03 15:00:00"], check=True, capture_output=True)
reply("503 Service Unavailable")
"""
)


def run(sandbox, fake, tmp_path: Path, agent: str):
    env = {
        "GAIA2_AGENT_COMMAND": f"python3 -c {shlex.quote(agent)}",
        "GAIA2_AGENT_PROVIDER": "openai",
        "GAIA2_AGENT_MODEL": "qwen",
        "GAIA2_AGENT_BASE_URL": f"http://{HOST}:{fake.port}",
        "GAIA2_AGENT_API_KEY": SECRET,
        "ANSWER": ANSWER,
    }
    result = run_scenario(
        SCENARIO, ORACLE_IMAGE, tmp_path / "out", sandbox=sandbox, extra_env=env, timeout=240
    )
    out = tmp_path / "out" / result.scenario_id
    return result, out, (out / "agent.log").read_text()


def trace_lines(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]


def assert_no_key(out: Path, relay_wrote_none: bool = True) -> None:
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_bytes().decode("utf-8", "replace"), path
    if relay_wrote_none:  # not even scrubbed away on the host: the relay never wrote it
        assert "[REDACTED]" not in (out / "trace.jsonl").read_text()


def test_every_request_lands_in_the_trace_with_the_bytes_the_agent_got(
    sandbox, images, fake, tmp_path: Path
) -> None:
    fake.set_script({route: [REPLY] for route in ("anthropic", "responses", "gemini", "chat")})
    result, out, log = run(sandbox, fake, tmp_path, FORMATS)
    assert (result.status, result.success) == ("completed", True), (result.error, log)
    lines = trace_lines(out)
    assert [line["seq"] for line in lines] == [0, 1, 2, 3, 4]
    assert [line["model"] for line in lines] == [
        "qwen",
        "qwen",
        "qwen",
        "qwen",
        None,
    ]  # the relay pins the model
    assert all(line["type"] == "llm_call" and line["provider"] == "openai" for line in lines)
    assert lines[2]["url"] == f"http://{HOST}:{fake.port}/v1beta/models/qwen:streamGenerateContent?alt=sse"
    assert [line["http_status"] for line in lines] == [200, 200, 200, 200, 404]
    sent = fake.llm_requests()
    assert [line["request"] for line in lines[:4]] == [r["body"] for r in sent]  # as the provider got it
    assert sent[3]["body"]["stream_options"] == {
        "include_usage": True
    }  # the relay asks a chat stream for its usage
    assert {r["headers"]["x-api-key"] for r in sent} == {SECRET}  # forwarded, never recorded
    # The raw bodies are the very bytes the agent received, streams whole.
    got = [line.split()[1:] for line in log.splitlines() if line.startswith("CALL ")]
    assert got.pop(3)[:2] == ["/v1/responses", "400"]  # the refused model's call
    assert got == [
        [
            line["url"].split(str(fake.port))[1].split("?")[0],
            str(line["http_status"]),
            hashlib.sha256(line["raw_response"].encode()).hexdigest(),
        ]
        for line in lines
    ]
    assert lines[0]["raw_response"].startswith("event: message_start")
    assert lines[1]["raw_response"].startswith("event: response.created")
    assert lines[2]["raw_response"].startswith("data: {") and "\r\n\r\n" in lines[2]["raw_response"]
    assert lines[3]["raw_response"].rstrip().endswith("data: [DONE]")
    assert_no_key(out)
    # The viewer reads every call: the four answers with their tool call, the model list as a side request.
    calls = [parse_line(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    for call in calls[:4]:
        assert (call.response.text, [t.name for t in call.response.tool_calls]) == (
            "Booking it.",
            ["shell"],
        ), call
        assert not call.warnings, call.warnings
    assert calls[4].response.error == "not found"
    Site(out.parent).refresh()
    page = (out / "trace.html").read_text()
    assert "qwen" in page and "gpt-5-codex" not in page
    events = [json.loads(e) for e in (out / "events.jsonl").read_text().splitlines()]
    assert sum(e["kind"] == "provider_call" for e in events) == 5
    assert result.provider["refused_model"] == 1 and result.provider["calls"] == 5, result.provider


@pytest.mark.redteam
def test_the_agent_cannot_alter_delete_or_replace_the_record(sandbox, images, fake, tmp_path: Path) -> None:
    fake.set_script({"chat": [REPLY]})
    result, out, log = run(sandbox, fake, tmp_path, ATTACKS)
    assert (result.status, result.success) == ("completed", True), (result.error, log)
    attacks = [line.split()[1:3] for line in log.splitlines() if line.startswith("ATTACK ")]
    assert attacks == [
        [name, "denied"] for name in ("append", "truncate", "delete", "list", "rename", "kill-daemon")
    ]
    [line] = trace_lines(out)  # the relay's record, whole; the agent's own trace.jsonl ignored
    # The key the agent holds is the run's placeholder (the relay swapped in the real one): worthless, kept as sent.
    assert line["request"]["messages"][0]["content"].startswith("hi sk-gaia2-placeholder-")
    assert "FORGED" not in line["raw_response"] and "forged" not in (out / "trace.jsonl").read_text().lower()
    assert "not collected" in (out / "daemon.log").read_text()
    assert_no_key(out)


@pytest.mark.redteam
def test_a_flood_is_capped_and_the_run_still_ends_with_a_verdict(
    sandbox, images, fake, tmp_path: Path
) -> None:
    fake.set_script({"chat": [{"text": "ok", "repeat": 400}]})
    result, out, log = run(sandbox, fake, tmp_path, FLOOD)
    assert (result.status, result.success) == ("completed", True), (result.error, log[-2000:])
    assert (
        sum(line.startswith("CALL ") and " 200 " in line for line in log.splitlines()) == 320
    )  # every call answered
    size = (out / "trace.jsonl").stat().st_size
    assert size <= 64 * 1024 * 1024 + 1024
    lines = trace_lines(out)
    assert lines[-1]["type"] == "truncated" and all(line["type"] == "llm_call" for line in lines[:-1])
    assert lines[0]["truncated"] == ["request"] and lines[0]["body_bytes"]["request"] > 4 << 20
    assert len(lines) < 320


def test_an_answer_sent_while_the_provider_fails_is_no_verdict(sandbox, images, fake, tmp_path: Path) -> None:
    """The relay saw the provider fail twice in a row, then the agent wrote to the user: that text
    is no model's answer. An infrastructure error (rerun with --retry), never a judged failure."""
    down = {"status": 503, "message": "overloaded", "repeat": 5}
    fake.set_script({"chat": [down], "preflight": [down]})  # down for the runner's own probe too
    result, out, log = run(sandbox, fake, tmp_path, ERROR_AS_ANSWER)
    assert (result.status, result.success) == ("error", None), (result.error, log)
    assert f"provider error: HTTP 503 from http://{HOST}:{fake.port}/v1/chat/completions" in result.error
    assert "the agent's message to the user came after it: '503 Service Unavailable'" in result.error
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert not [e for e in events if e["kind"] == "agent_message"]  # it never reached ARE
