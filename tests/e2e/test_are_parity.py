"""scripts/are_parity.py: ARE's own `are-benchmark run` in the runtime image and the runner's
`--agent are-default` on the same scenarios, through the recording proxy, compared request by request.

End to end twice: on the scripted provider (fast: both sides solve the calendar task; ARE's random
event id is where the conversations part) and on the CI model (llama-server at temperature 0: the
first requests are byte-identical on two demo scenarios). The proxy and the report also on their
own, against a real HTTP server and on recorded conversations. Also the runtime's settings, which
the host's agent table must agree with.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest
from test_are_default_agent import ADD, SEND

from are_parity_proxy import Exchange, RecordingProxy, read_recording
from are_parity_report import Side, answer_of, compare, render
from are_parity_runs import CI_MODEL_SCENARIOS, parity
from gaia2_container.runtimes.are_default import settings
from gaia2_runner.config.harnesses import BUILTIN
from harness_support import SCENARIOS

WIDTH = 80
# The report's table row: scenario, first request, identical pairs, calls (ARE/runner), cause, both verdicts.
ROW = re.compile(
    r"^(?P<id>\S+)\s+(?P<first>identical|same JSON|differs|no call)\s+(?P<same>\d+)\s+"
    r"(?P<calls>\d+/\d+)\s+(?P<cause>\S.*?)\s+(?P<are>PASS|FAIL|ERROR|-)\s+(?P<runner>PASS|FAIL|ERROR|-)$"
)


def rows(stdout: str) -> dict[str, dict[str, str]]:
    return {m["id"]: m.groupdict() for line in stdout.splitlines() if (m := ROW.match(line))}


def explain(proc: subprocess.CompletedProcess, out: Path) -> tuple:
    logs = sorted(out.rglob("*.log"))
    return proc.stdout, proc.stderr[-3000:], {str(p): p.read_text(errors="replace")[-2000:] for p in logs}


@pytest.mark.integration
@pytest.mark.timeout(900)
def test_parity_script_runs_both_sides_on_the_same_server(sandbox, images, fake, tmp_path):
    fake.set_script({"chat": [ADD, SEND, ADD, SEND]})  # are-benchmark's run, then the runner's
    out = tmp_path / "parity"
    proc = parity(
        "--model",
        "fake-model",
        "--base-url",
        f"http://127.0.0.1:{fake.port}/v1",
        "--scenarios",
        str(SCENARIOS / "demo_calendar_add_event.json"),
        "--output-dir",
        str(out),
        "--timeout",
        "300",
        timeout=850,
    )
    assert proc.returncode == 0, explain(proc, out)
    row = rows(proc.stdout)["demo_calendar_add_event"]
    # The same first prompt byte for byte (server, model name, system prompt, tool list, task and its
    # clock); the same first answer; then the event id ARE's calendar drew (App.set_seed hashes a
    # string, which Python salts per process) in the add_calendar_event output of request 2.
    assert (row["first"], row["same"], row["calls"], row["cause"]) == (
        "identical",
        "1",
        "2/2",
        "random id",
    ), proc.stdout
    assert (row["are"], row["runner"]) == ("PASS", "PASS") and "1/1 verdicts agree" in proc.stdout
    assert "request 2, message" in proc.stdout and "(user, tool output)" in proc.stdout, proc.stdout
    assert all(len(line) <= WIDTH for line in proc.stdout.splitlines()), proc.stdout
    # Every request reached the one server through the proxy, each recorded on its side's route.
    requests = fake.llm_requests()
    assert len(requests) == 4 and requests[0]["body"] == requests[2]["body"]
    recorded = {p.stem: read_recording(p) for p in (out / "recordings").glob("*.jsonl")}
    assert sorted((k, len(v)) for k, v in recorded.items()) == [("are-0-agent", 2), ("runner-0-agent", 2)]
    assert recorded["are-0-agent"][0].request_bytes == recorded["runner-0-agent"][0].request_bytes


@pytest.mark.integration
@pytest.mark.real_model
@pytest.mark.timeout(3000)
def test_parity_on_the_ci_model_starts_from_identical_requests(ci_model_parity):
    """The CI model (greedy at the server): what the issue measured by hand stays true in CI."""
    proc, out = ci_model_parity
    print(proc.stdout)  # the report, for the CI log (and docs/design/are-fidelity.md)
    found = rows(proc.stdout)
    assert set(found) == set(CI_MODEL_SCENARIOS), explain(proc, out)
    for scenario_id, row in found.items():
        assert row["first"] == "identical", (scenario_id, proc.stdout)
        are_calls, runner_calls = map(int, row["calls"].split("/"))
        assert 0 <= int(row["same"]) <= min(are_calls, runner_calls), (scenario_id, proc.stdout)
        assert row["cause"] and row["runner"] in ("PASS", "FAIL"), (scenario_id, proc.stdout)
        assert f"{scenario_id}:\n  first request: identical" in proc.stdout
        assert f"verdicts: are-benchmark {row['are']} (" in proc.stdout
    assert all(len(line) <= WIDTH for line in proc.stdout.splitlines()), proc.stdout


def test_the_proxy_passes_answers_and_streams_through_and_records_them(fake, tmp_path):
    fake.set_script({"chat": [{"text": "plain"}, {"text": "streamed"}]})
    proxy = RecordingProxy(
        {"a-0-agent": f"http://127.0.0.1:{fake.port}/v1"}, tmp_path / "rec", host="127.0.0.1"
    )
    proxy.start()
    try:
        url = proxy.base_url("a-0-agent", "127.0.0.1")
        assert url == f"http://127.0.0.1:{proxy.port}/a-0-agent/v1"
        sent = b'{"model": "m",  "messages": [{"role": "user", "content": "hi \\u00e9"}]}'
        plain = httpx.post(
            f"{url}/chat/completions", content=sent, headers={"Content-Type": "application/json"}
        )
        with httpx.stream(
            "POST",
            f"{url}/chat/completions",
            json={"model": "m", "stream": True, "messages": [{"role": "user", "content": "s"}]},
        ) as s:
            assert s.headers["content-type"].startswith("text/event-stream")
            streamed = b"".join(s.iter_raw())
        unknown = httpx.post(f"http://127.0.0.1:{proxy.port}/nowhere/v1/chat/completions", content=b"{}")
    finally:
        proxy.stop()
    assert plain.json()["choices"][0]["message"]["content"] == "plain"
    assert b"data: [DONE]" in streamed
    assert unknown.status_code == 404
    # The upstream got the path below the tag and the body as sent; the recording holds both answers.
    assert [r["path"] for r in fake.llm_requests()] == ["/v1/chat/completions"] * 2
    recorded = read_recording(tmp_path / "rec" / "a-0-agent.jsonl")
    assert [e.path for e in recorded] == ["/v1/chat/completions"] * 2 and recorded[0].request_bytes == sent
    assert json.loads(recorded[0].response) == plain.json() and recorded[1].response.encode() == streamed
    assert answer_of(recorded[1])["stream"] == "streamed" and answer_of(recorded[1])["finish"] == ["stop"]
    assert recorded == proxy.exchanges["a-0-agent"]


def test_the_proxy_aborts_what_an_ended_side_left_in_flight(fake, tmp_path):
    """A one-slot server must not go on computing for a side whose run has ended."""
    fake.set_script({"chat": [{"text": "late", "delay_s": 30}]})
    proxy = RecordingProxy(
        {"a-0-agent": f"http://127.0.0.1:{fake.port}/v1", "b-0-agent": "http://127.0.0.1:9/v1"},
        tmp_path / "rec",
        host="127.0.0.1",
    )
    proxy.start()
    client = threading.Thread(
        target=lambda: httpx.post(
            f"{proxy.base_url('a-0-agent', '127.0.0.1')}/chat/completions",
            json={"model": "m", "messages": []},
            timeout=60,
        )
    )
    client.start()
    try:
        deadline = time.monotonic() + 10
        while not fake.llm_requests() and time.monotonic() < deadline:
            time.sleep(0.05)
        started = time.monotonic()
        assert proxy.abort("b-") == 0 and proxy.abort("a-") == 1
        assert time.monotonic() - started < 5
    finally:
        proxy.stop()
    [aborted] = proxy.exchanges["a-0-agent"]
    assert aborted.error.startswith("aborted: its side's run had ended") and aborted.response == ""
    client.join(10)


def _call(messages: list[dict], answer: str, **extra) -> Exchange:
    body = json.dumps({"model": "m", "messages": messages, **extra})
    reply = {
        "id": f"chatcmpl-{len(messages)}{answer[:3]}",
        "created": len(answer),
        "model": "m",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}
        ],
    }
    return Exchange("POST", "/v1/chat/completions", body, 200, json.dumps(reply))


def _conversation(event_id: str, final: str = "Done.") -> list[Exchange]:
    system, task = (
        {"role": "system", "content": "You act."},
        {"role": "user", "content": "[TASK]: \nAdd it.\n"},
    )
    step = {"role": "assistant", "content": "Action: add"}
    seen = {"role": "user", "content": f"[OUTPUT OF STEP 1] Observation:\n***\nEventID: {event_id}\n***\n"}
    return [_call([system, task], "Action: add"), _call([system, task, step, seen], final)]


def test_the_report_names_a_random_id_in_a_tool_output_and_fits_80_columns():
    are = Side("PASS", "status success", _conversation("3f9a0c1e2b7d4f60a1b2c3d4e5f60718"))
    runner = Side("PASS", "status completed", _conversation("9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a49"))
    result = compare("demo_calendar_add_event_with_a_long_name", are, runner)
    assert (result.first, result.same, result.cause) == ("identical", 1, "random id")
    text = render([result])
    assert "«3f9a0c1e2b7d4f60a1b2c3d4e5f60718»" in text and "request 2, message 4 (user, tool output)" in text
    assert all(len(line) <= WIDTH for line in text.splitlines()), text
    assert rows(text)["demo_calendar_add_event_w…"]["cause"] == "random id"


def test_the_report_says_what_else_parts_two_conversations():
    same = _conversation("e1")
    assert compare("s", Side("PASS", "", same), Side("PASS", "", same)).cause == "none"
    # Another answer to the same request: the server did not decode greedily.
    other = [
        same[0],
        Exchange(**{**same[1].__dict__, "response": same[1].response.replace("Done.", "Oops.")}),
    ]
    reply = compare("s", Side("PASS", "", same), Side("FAIL", "", other))
    assert (reply.same, reply.cause) == (1, "model reply") and "«Done»" in reply.detail[1]
    # A request sent again unchanged (LiteLLM retrying an interrupted read) counts once, and is said.
    retried = compare("s", Side("-", "", [same[0], same[0], same[1]]), Side("PASS", "", list(same)))
    assert (retried.same, retried.cause) == (2, "none") and "are-benchmark 1, runner 0" in retried.detail[0]
    # A request whose answer never came (its side's run ended, the proxy aborted it) ends that side there.
    cut = Exchange(
        **{**same[1].__dict__, "status": None, "response": "", "error": "aborted: its side's run had ended"}
    )
    unanswered = compare("s", Side("-", "", [same[0], cut]), Side("PASS", "", list(same)))
    assert (unanswered.same, unanswered.cause) == (
        1,
        "ARE ended",
    ) and "got no answer (aborted" in unanswered.detail[0]
    assert compare("s", Side("-", "", [same[0], cut]), Side("-", "", [same[0], cut])).cause == "both ended"
    ended = compare("s", Side("PASS", "", same), Side("ERROR", "", same[:1]))
    assert (ended.same, ended.cause) == (1, "runner ended")
    # Key order is canonicalised (and said); another field is a diff of the two bodies.
    swapped = Exchange(
        **{**same[0].__dict__, "request": json.dumps(dict(reversed(json.loads(same[0].request).items())))}
    )
    assert compare("s", Side("PASS", "", same), Side("PASS", "", [swapped, same[1]])).first == "same JSON"
    hot = _call(json.loads(same[0].request)["messages"], "Action: add", temperature=0.7)
    diff = compare("s", Side("PASS", "", same), Side("PASS", "", [hot, same[1]]))
    assert (diff.first, diff.same, diff.cause) == ("differs", 0, "request")
    assert "+temperature: 0.7" in diff.first_diff and "fields differ: temperature" in diff.detail[0]
    assert compare("s", Side("-", "", []), Side("PASS", "", same)).first == "no call"


def test_runtime_settings_follow_gaia2_run():
    env = {
        "GAIA2_AGENT_PROVIDER": "openai-compat",
        "GAIA2_AGENT_MODEL": "Qwen/Qwen3-8B",
        "GAIA2_AGENT_BASE_URL": "http://127.0.0.1:8092/",
    }
    parsed = settings.EngineSettings.from_env(env)
    assert (parsed.model, parsed.endpoint, parsed.api_key) == (
        "openai/Qwen/Qwen3-8B",
        "http://127.0.0.1:8092",
        "gaia2-no-key",
    )
    assert (
        settings.EngineSettings.from_env({**env, "GAIA2_AGENT_OPTIONS": "{}"}).model == "openai/Qwen/Qwen3-8B"
    )
    for bad, words in [
        ({"GAIA2_AGENT_PROVIDER": "anthropic"}, "chat completions"),
        ({"GAIA2_AGENT_MODEL": ""}, "GAIA2_AGENT_MODEL"),
        ({"GAIA2_AGENT_OPTIONS": json.dumps({"max_iterations": 5})}, "takes no options"),
    ]:
        with pytest.raises(settings.SettingsError, match=words):
            settings.EngineSettings.from_env({**env, **bad})


def test_the_host_offers_the_providers_the_runtime_accepts():
    harness = BUILTIN["are-default"]
    assert harness.providers == settings.PROVIDERS and harness.runtime == "are-default"
