"""Agent2Agent in the daemon without ARE: the expert sub-agents' relay (daemon/relay/experts.py) over
real HTTP on loopback, their settings (GAIA2_A2A_*), the nesting of what they do under the agent's
`expert_agent` call (daemon/a2a.py), and that the agent's process never sees their settings or key."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from gaia2_container.daemon.a2a import A2AError, A2ASettings, ExpertAgents
from gaia2_container.daemon.agent.process import agent_environment
from gaia2_container.daemon.relay import experts as a2a_relay
from gaia2_contract import constants as contract

KEY = "sk-a2a-SECRET-7890"
AGENT_KEY = "sk-agent-SECRET-1234"


class Provider(BaseHTTPRequestHandler):
    """A chat completions endpoint that remembers what reached it."""

    seen: list[dict] = []

    def log_message(self, *_args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.seen.append({"path": self.path, "headers": dict(self.headers), "body": json.loads(body)})
        answer = json.dumps(
            {
                "choices": [{"message": {"role": "assistant", "content": "done"}}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 1},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


class Recorder:
    def __init__(self) -> None:
        self.lines: list[dict] = []

    def record(self, kind: str, sim_time: float | None, **fields) -> int:
        self.lines.append({"kind": kind, **fields})
        return len(self.lines) - 1


@pytest.fixture
def relay():
    Provider.seen = []
    provider = ThreadingHTTPServer(("127.0.0.1", 0), Provider)
    threading.Thread(target=provider.serve_forever, daemon=True).start()
    recorder = Recorder()
    faults: list[str] = []
    experts = ExpertAgents(A2ASettings(1.0, "openai-compat", "small", None), recorder.record, None, None)
    relay, placeholder, url = a2a_relay.start(
        "openai-compat",
        "small",
        f"http://127.0.0.1:{provider.server_address[1]}/v1",
        KEY,
        {},
        write=experts.record_llm_call,
        on_fault=faults.append,
        port=0,
    )
    yield relay, placeholder, url, recorder, experts
    provider.shutdown()


def _ask(url: str, key: str | None) -> httpx.Response:
    return httpx.post(
        url + "/chat/completions",
        headers={"Authorization": f"Bearer {key}"} if key else {},
        json={"model": "small", "messages": [{"role": "user", "content": "hi"}]},
        timeout=10,
    )


def test_sub_agent_calls_get_the_key_and_nest_under_the_expert_call(relay):
    _relay, placeholder, url, recorder, experts = relay
    with experts.expert_call("AppAgent", "Calendar") as call_id:
        assert call_id and _ask(url, placeholder).status_code == 200
    assert Provider.seen[0]["headers"]["Authorization"] == f"Bearer {KEY}"  # swapped in by the relay
    (line,) = [x for x in recorder.lines if x["kind"] == "llm_call"]
    assert line["parent_call_id"] == call_id and line["a2a_app"] == "Calendar"
    assert line["request"]["messages"][0]["content"] == "hi" and '"done"' in line["raw_response"]
    assert KEY not in json.dumps(recorder.lines)  # records never hold the key


def test_the_agent_cannot_use_the_sub_agents_relay(relay):
    """Anything without the daemon's placeholder (the agent's own placeholder, a key of its own,
    nothing) is refused before it is forwarded or recorded."""
    _relay, _placeholder, url, recorder, _experts = relay
    for key in ("sk-gaia2-placeholder-agents-own", "sk-mine", None):
        answer = _ask(url, key)
        assert answer.status_code == a2a_relay.NOT_SUB_AGENT_STATUS and "expert agents only" in answer.text
    assert Provider.seen == [] and recorder.lines == []


def test_the_expert_relay_forwards_the_experts_model_only(relay):
    """A sub-agent's request naming another model (the agent's "big", a dearer one) never leaves."""
    expert_relay, placeholder, url, recorder, _experts = relay
    for model in ("big", "o1-pro"):
        answer = httpx.post(
            url + "/chat/completions",
            headers={"Authorization": f"Bearer {placeholder}"},
            json={"model": model, "messages": []},
            timeout=10,
        )
        assert (
            answer.status_code == 400 and "this run's model is 'small'" in answer.json()["error"]["message"]
        )
    assert Provider.seen == [] and expert_relay.ledger.summary()["refused_model"] == 2
    assert _ask(url, placeholder).status_code == 200


def test_other_tool_calls_get_no_call_id():
    experts = ExpertAgents(A2ASettings(1.0, "openai-compat", "m", None), Recorder().record, None, None)
    with experts.expert_call("CalendarApp", "Calendar") as call_id:
        assert call_id is None
        assert experts.nesting() == {"parent_call_id": None, "a2a_app": None}


def test_observed_sub_agent_tool_calls_are_recorded_and_unchanged():
    """What the sub-agent's tool returns or raises reaches it unchanged; each call is one nested record."""
    recorder = Recorder()
    experts = ExpertAgents(A2ASettings(1.0, "openai-compat", "m", None), recorder.record, None, None)

    class AppTool:
        app_name, func_name, write_operation = "Calendar", "add_calendar_event", True

    class Adapter:  # the shape of ARE's AppToolAdapter: a name, the app tool, a forward()
        name, app_tool = "Calendar__add_calendar_event", AppTool()

        def forward(self, **kwargs):
            if kwargs.get("title") == "bad":
                raise ValueError("no such day")
            return "event-1"

    tool = Adapter()
    experts._observe("Calendar", tool)
    with experts.expert_call("AppAgent", "Calendar") as call_id:
        assert tool.forward(title="ok") == "event-1"
        with pytest.raises(ValueError, match="no such day"):
            tool.forward(title="bad")
    ok, bad = recorder.lines
    assert (
        ok["kind"] == bad["kind"] == "tool_call" and ok["parent_call_id"] == bad["parent_call_id"] == call_id
    )
    assert ok["app"] == "Calendar" and ok["function"] == "add_calendar_event" and ok["write"] is True
    assert (
        ok["ok"] is True
        and ok["result"] == "event-1"
        and bad["ok"] is False
        and "no such day" in bad["error"]
    )


def test_settings_default_to_the_agents_and_bad_ones_are_one_line():
    base = {
        contract.ENV_AGENT_PROVIDER: "openai",
        contract.ENV_AGENT_MODEL: "big",
        contract.ENV_AGENT_BASE_URL: "http://x/v1",
        contract.ENV_AGENT_API_KEY: AGENT_KEY,
    }
    assert A2ASettings.from_env(base) is None
    assert A2ASettings.from_env({**base, contract.ENV_A2A_APP_PROP: "0"}) is None
    same = A2ASettings.from_env({**base, contract.ENV_A2A_APP_PROP: "1.0"})
    assert (same.app_prop, same.provider, same.model, same.base_url, same.key) == (
        1.0,
        "openai",
        "big",
        "http://x/v1",
        AGENT_KEY,
    )
    own = A2ASettings.from_env(
        {
            **base,
            contract.ENV_A2A_APP_PROP: "0.5",
            contract.ENV_A2A_PROVIDER: "openrouter",
            contract.ENV_A2A_MODEL: "small",
            contract.ENV_A2A_API_KEY: KEY,
        }
    )
    assert (own.provider, own.model, own.base_url, own.key) == ("openrouter", "small", None, KEY)
    assert KEY not in repr(own)
    assert a2a_relay.upstream_of(own.provider, own.base_url) == "https://openrouter.ai/api/v1"
    with pytest.raises(A2AError, match="not a fraction from 0 to 1"):
        A2ASettings.from_env({**base, contract.ENV_A2A_APP_PROP: "2"})
    with pytest.raises(A2AError, match="chat completions endpoint"):
        A2ASettings.from_env({**base, contract.ENV_A2A_APP_PROP: "1", contract.ENV_A2A_PROVIDER: "anthropic"})
    assert (
        A2ASettings.from_env({contract.ENV_A2A_APP_PROP: "1"}, needs_model=False).app_prop == 1.0
    )  # the oracle


def test_the_agents_process_never_sees_the_expert_agents_settings_or_key():
    env = agent_environment(
        {
            contract.ENV_A2A_APP_PROP: "1",
            contract.ENV_A2A_API_KEY: KEY,
            contract.ENV_A2A_MODEL: "small",
            "PATH": "/usr/bin",
        }
    )
    assert not [k for k in env if k.startswith(contract.A2A_ENV_PREFIX)] and KEY not in json.dumps(env)


def test_a_taken_relay_port_is_the_runs_one_line_error(relay):
    """Binding the expert relay's port fails (another listener holds it): A2AError, which main()
    turns into the run's error (as a scenario that does not load), never a daemon traceback."""
    taken = int(relay[2].rsplit(":", 1)[1])
    with pytest.raises(A2AError, match=f"cannot listen on 127.0.0.1:{taken}") as caught:
        a2a_relay.start(
            "openai-compat",
            "small",
            "http://127.0.0.1:9/v1",
            KEY,
            {},
            write=lambda _fields: None,
            on_fault=lambda _reason: None,
            port=taken,
        )
    assert "\n" not in str(caught.value) and KEY not in str(caught.value)


def test_sub_agent_calls_stop_being_recorded_at_the_trace_cap():
    """The sub-agents' llm_call lines (events.jsonl) are capped as trace.jsonl is (relay_trace's
    TOTAL_CAP_BYTES): past it one line says so, later calls are dropped and counted."""
    from gaia2_container.daemon.relay.trace import TOTAL_CAP_BYTES, Capture

    written: list[dict] = []
    trace = a2a_relay.EventsTrace("openai-compat", written.append)
    assert trace.total_cap == TOTAL_CAP_BYTES
    trace.total_cap = 2000  # a small cap, the same rule

    def call() -> None:
        request, response = Capture(), Capture()
        request.add(
            json.dumps({"model": "small", "messages": [{"role": "user", "content": "x" * 600}]}).encode()
        )
        response.add(b'{"choices": []}')
        trace.record(
            url="http://127.0.0.1:9/v1/chat/completions",
            path="/v1/chat/completions",
            started=0.0,
            latency_ms=1.0,
            http_status=200,
            request=request,
            response=response,
        )

    for _ in range(6):
        call()
    calls = [w for w in written if "request" in w]
    assert 1 <= len(calls) < 6 and len(written) == len(calls) + 1
    assert written[-1]["error"] == trace.cap_message() and "2000 bytes" in written[-1]["error"]
    assert trace.dropped == 6 - len(calls) and trace.lines == len(calls)
