"""Unit tests of the LLM agent runtime against the fake provider server, without containers.

Covers each provider's wire format both ways, retries and Retry-After, the trace lines, the
settings, context trimming, the fake server's streams, and the agent loop against a stub tool API.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from fake_llm.server import FakeLLM  # noqa: E402
from gaia2_container import places  # noqa: E402
from gaia2_container.runtimes.llm.context import trim  # noqa: E402
from gaia2_container.runtimes.llm.loop import Agent  # noqa: E402
from gaia2_container.runtimes.llm.messages import Message, Tool, ToolCall  # noqa: E402
from gaia2_container.runtimes.llm.providers import make_provider  # noqa: E402
from gaia2_container.runtimes.llm.settings import Options, Settings, SettingsError  # noqa: E402
from gaia2_container.runtimes.llm.trace import Redactor, TraceWriter, public_url  # noqa: E402
from gaia2_container.runtimes.llm.transport import ProviderError, RetryPolicy, Transport  # noqa: E402

KEY = "sk-unit-SECRET-123"
TOOLS = [
    Tool(
        "CalendarApp__add_calendar_event",
        "Add an event.",
        {
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "t"},
                "tags": {"type": "array", "items": {}},
            },
            "required": ["title"],
        },
    )
]
CONVERSATION = [
    Message("system", "You are a test."),
    Message("user", "Add lunch."),
    Message("assistant", "", [ToolCall("call_1", "CalendarApp__add_calendar_event", {"title": "Lunch"})]),
    Message("tool", '"evt-1"', tool_call_id="call_1", name="CalendarApp__add_calendar_event"),
]
REPLY = {
    "text": "On it.",
    "tool_calls": [{"name": "CalendarApp__add_calendar_event", "arguments": {"title": "Dinner"}}],
}


@pytest.fixture
def fake():
    server = FakeLLM()
    server.start()
    yield server
    server.stop()


def make(fake_or_url: Any, tmp_path: Path, provider: str, sleeps: list[float] | None = None, **options: Any):
    base = fake_or_url if isinstance(fake_or_url, str) else f"http://127.0.0.1:{fake_or_url.port}/v1"
    settings = Settings(provider, "test-model", base, KEY, Options(**options))
    redact = Redactor(KEY)
    trace = TraceWriter(tmp_path / "trace.jsonl", redact, provider, "test-model")
    record = sleeps.append if sleeps is not None else (lambda _s: None)
    opts = settings.options
    transport = Transport(trace, redact, 5.0, RetryPolicy(opts.max_retries, 0.01, 2.0), sleep=record)
    return make_provider(settings, transport)


def traces(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]


# ---- wire formats ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "provider,options,route",
    [
        ("openai", {}, "chat"),
        ("openai-compat", {}, "chat"),
        ("openrouter", {}, "chat"),
        ("openai", {"api": "responses"}, "responses"),
        ("anthropic", {}, "anthropic"),
        ("gemini", {}, "gemini"),
    ],
)
def test_round_trip_through_each_wire_format(fake, tmp_path, provider, options, route):
    fake.set_script({route: [REPLY]})
    reply = make(fake, tmp_path, provider, **options).complete(CONVERSATION, TOOLS)
    assert reply.text == "On it."
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("CalendarApp__add_calendar_event", {"title": "Dinner"})
    ]
    assert reply.tool_calls[0].id
    assert reply.usage.input_tokens and reply.usage.output_tokens and reply.usage.cache_read_tokens == 0
    (req,) = fake.llm_requests()
    assert req["route"] == route
    line = traces(tmp_path)[0]
    assert line["type"] == "llm_call" and line["http_status"] == 200 and line["request"] == req["body"]
    assert json.loads(line["raw_response"]) and line["usage"]["input_tokens"] == reply.usage.input_tokens
    assert KEY not in (tmp_path / "trace.jsonl").read_text()


def test_openai_chat_body_and_auth(fake, tmp_path):
    fake.set_script([{"text": "ok"}])
    make(fake, tmp_path, "openai", temperature=0.2).complete(CONVERSATION, TOOLS)
    req = fake.llm_requests()[0]
    body = req["body"]
    assert req["headers"]["authorization"] == f"Bearer {KEY}"
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool"]
    call = body["messages"][2]["tool_calls"][0]
    assert call["type"] == "function" and json.loads(call["function"]["arguments"]) == {"title": "Lunch"}
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_1", "content": '"evt-1"'}
    assert body["tools"][0]["function"]["parameters"] == TOOLS[0].parameters
    assert body["max_completion_tokens"] == 4096 and body["temperature"] == 0.2


def test_openai_compat_without_key_sends_no_auth(fake, tmp_path):
    fake.set_script([{"text": "ok"}])
    settings = Settings("openai-compat", "m", f"http://127.0.0.1:{fake.port}/v1", None, Options())
    trace = TraceWriter(None, Redactor(None), "openai-compat", "m")
    make_provider(settings, Transport(trace, Redactor(None), 5, RetryPolicy())).complete(CONVERSATION, TOOLS)
    req = fake.llm_requests()[0]
    assert "authorization" not in req["headers"] and req["body"]["max_tokens"] == 4096


def test_responses_body(fake, tmp_path):
    fake.set_script([REPLY, {"text": "done"}])
    provider = make(fake, tmp_path, "openai", api="responses")
    first = provider.complete(CONVERSATION, TOOLS)
    body = fake.llm_requests()[0]["body"]
    assert body["instructions"] == "You are a test." and body["max_output_tokens"] == 4096
    kinds = [i.get("type", i.get("role")) for i in body["input"]]
    assert kinds == ["user", "function_call", "function_call_output"]
    assert body["tools"][0]["name"] == "CalendarApp__add_calendar_event"
    # The assistant turn goes back as the output items it came with.
    provider.complete(CONVERSATION + [first.as_message(provider.name)], TOOLS)
    second = fake.llm_requests()[1]["body"]["input"]
    assert second[-2:] == first.raw


def test_anthropic_body_and_headers(fake, tmp_path):
    fake.set_script([{"text": "ok"}])
    make(fake, tmp_path, "anthropic").complete(
        CONVERSATION + [Message("user", "[Notification] new email")], TOOLS
    )
    req = fake.llm_requests()[0]
    assert req["headers"]["x-api-key"] == KEY and req["headers"]["anthropic-version"] == "2023-06-01"
    assert "authorization" not in req["headers"]
    body = req["body"]
    assert body["system"] == "You are a test." and body["max_tokens"] == 4096
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [
        {
            "type": "tool_use",
            "id": "call_1",
            "name": "CalendarApp__add_calendar_event",
            "input": {"title": "Lunch"},
        }
    ]
    result, note = body["messages"][2]["content"]  # consecutive user entries merged into one message
    assert result["type"] == "tool_result" and result["tool_use_id"] == "call_1"
    assert note == {"type": "text", "text": "[Notification] new email"}
    assert body["tools"][0]["input_schema"] == TOOLS[0].parameters


def test_gemini_body_and_headers(fake, tmp_path):
    fake.set_script([{"text": "ok"}])
    make(fake, tmp_path, "gemini").complete(CONVERSATION, TOOLS)
    req = fake.llm_requests()[0]
    assert req["path"] == "/v1/models/test-model:generateContent"
    assert req["headers"]["x-goog-api-key"] == KEY and "key=" not in req["path"]
    body = req["body"]
    assert body["systemInstruction"] == {"parts": [{"text": "You are a test."}]}
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    assert body["contents"][1]["parts"] == [
        {"functionCall": {"name": "CalendarApp__add_calendar_event", "args": {"title": "Lunch"}}}
    ]
    assert body["contents"][2]["parts"][0]["functionResponse"]["name"] == "CalendarApp__add_calendar_event"
    decl = body["tools"][0]["functionDeclarations"][0]
    assert decl["parameters"]["properties"]["tags"]["items"] == {"type": "string"}
    assert body["generationConfig"]["maxOutputTokens"] == 4096


# ---- retries and errors ------------------------------------------------------------------------
def test_429_with_retry_after_is_retried(fake, tmp_path):
    fake.set_script([{"status": 429, "retry_after": 1}, {"status": 503}, {"text": "finally"}])
    sleeps: list[float] = []
    reply = make(fake, tmp_path, "openai", sleeps=sleeps).complete(CONVERSATION, TOOLS)
    assert reply.text == "finally"
    assert sleeps[0] == 1.0 and 0 < sleeps[1] < 1.0  # Retry-After honoured, then exponential backoff
    (line,) = traces(tmp_path)
    assert line["attempts"] == 3 and line["http_status"] == 200


def test_persistent_503_is_a_provider_error(fake, tmp_path):
    fake.set_script([{"status": 503, "repeat": 10}])
    with pytest.raises(
        ProviderError, match=r"HTTP 503 from http://127\.0\.0\.1:\d+/v1/messages after 3 attempts: "
    ):
        make(fake, tmp_path, "anthropic", max_retries=2).complete(CONVERSATION, TOOLS)
    assert len(fake.llm_requests()) == 3
    assert traces(tmp_path)[0]["http_status"] == 503


def test_client_errors_are_not_retried(fake, tmp_path):
    fake.set_script([{"status": 400, "message": f"bad key {KEY}"}, {"text": "never"}])
    with pytest.raises(ProviderError) as info:
        make(fake, tmp_path, "gemini").complete(CONVERSATION, TOOLS)
    assert "HTTP 400" in str(info.value) and KEY not in str(info.value)
    assert len(fake.llm_requests()) == 1
    assert KEY not in (tmp_path / "trace.jsonl").read_text()  # echoed keys are redacted too


def test_connection_refused_is_a_provider_error(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ProviderError, match="cannot reach http://127.0.0.1"):
        make(f"http://127.0.0.1:{port}/v1", tmp_path, "openai", max_retries=1).complete(CONVERSATION, TOOLS)
    assert traces(tmp_path)[0]["http_status"] is None


# ---- settings, trace, context --------------------------------------------------------------------
def test_settings_from_env():
    s = Settings.from_env(
        {
            "GAIA2_AGENT_PROVIDER": "anthropic",
            "GAIA2_AGENT_MODEL": "claude",
            "GAIA2_AGENT_API_KEY": "k",
            "GAIA2_AGENT_OPTIONS": '{"max_steps_per_turn": 5}',
        }
    )
    assert s.base_url == "https://api.anthropic.com/v1" and s.options.max_steps_per_turn == 5
    with pytest.raises(SettingsError, match="unknown option"):
        Options.parse('{"max_step": 5}')
    with pytest.raises(SettingsError, match="GAIA2_AGENT_MODEL"):
        Settings.from_env({"GAIA2_AGENT_PROVIDER": "openai"})
    with pytest.raises(SettingsError, match="BASE_URL"):
        Settings.from_env({"GAIA2_AGENT_PROVIDER": "openai-compat", "GAIA2_AGENT_MODEL": "m"})
    assert (
        Settings.from_env(
            {
                "GAIA2_AGENT_PROVIDER": "openai-compat",
                "GAIA2_AGENT_MODEL": "m",
                "GAIA2_AGENT_BASE_URL": "http://h/v1/",
            }
        ).base_url
        == "http://h/v1"
    )


def test_public_url_drops_credentials():
    assert (
        public_url("https://u:p@h.example:8443/v1/x?key=abc&alt=sse") == "https://h.example:8443/v1/x?alt=sse"
    )


def test_trim_shortens_oldest_tool_results_first():
    msgs = [Message("system", "S"), Message("user", "T" * 1000)]
    for i in range(5):
        msgs += [
            Message("assistant", "", [ToolCall(f"c{i}", "X__y", {})]),
            Message("tool", str(i) * 1000, tool_call_id=f"c{i}"),
        ]
    assert trim(msgs, 3500) == 3
    assert [m.content[:1] for m in msgs if m.role == "tool"] == ["[", "[", "[", "3", "4"]
    assert msgs[1].content == "T" * 1000


# ---- streams of the fake server --------------------------------------------------------------------
def _sse_data(text: str) -> list[Any]:
    out = []
    for line in text.splitlines():
        if line.startswith("data: ") and line[6:] != "[DONE]":
            out.append(json.loads(line[6:]))
    return out


@pytest.mark.parametrize(
    "route,path,body",
    [
        (
            "chat",
            "/v1/chat/completions",
            {"model": "m", "stream": True, "stream_options": {"include_usage": True}},
        ),
        ("responses", "/v1/responses", {"model": "m", "stream": True}),
        ("anthropic", "/v1/messages", {"model": "m", "stream": True}),
        ("gemini", "/v1beta/models/m:streamGenerateContent?alt=sse", {}),
    ],
)
def test_fake_server_streams_reassemble(fake, route, path, body):
    import httpx

    fake.set_script({route: [REPLY]})
    resp = httpx.post(f"http://127.0.0.1:{fake.port}{path}", json=body)
    assert resp.headers["content-type"].startswith("text/event-stream")
    events = _sse_data(resp.text)
    text, args = "", ""
    for e in events:
        if route == "chat":
            for c in e["choices"]:
                text += c["delta"].get("content") or ""
                args += "".join(t["function"].get("arguments", "") for t in c["delta"].get("tool_calls", []))
        elif route == "responses":
            text += e.get("delta", "") if e["type"] == "response.output_text.delta" else ""
            args += e.get("delta", "") if e["type"] == "response.function_call_arguments.delta" else ""
        elif route == "anthropic":
            d = e.get("delta", {})
            text += d.get("text", "") if d.get("type") == "text_delta" else ""
            args += d.get("partial_json", "") if d.get("type") == "input_json_delta" else ""
        else:
            for p in e["candidates"][0]["content"]["parts"]:
                text += p.get("text", "")
                args += json.dumps(p["functionCall"]["args"]) if "functionCall" in p else ""
    assert text == "On it." and json.loads(args) == {"title": "Dinner"}
    assert len(events) >= 2


# ---- the loop against a stub tool API --------------------------------------------------------------
class StubToolApi:
    """Just enough of the daemon's tool API: a task in the inbox, calls recorded, done after the answer."""

    def __init__(self, task: str, tools: list[str]) -> None:
        self.inbox = [{"index": 0, "sender": "user", "content": task, "sim_time": 1727773200.0}]
        self.calls: list[tuple[str, dict]] = []
        self.tools = tools
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_a):
                pass

            def _json(self, doc):
                data = json.dumps(doc).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path.startswith("/inbox"):
                    after = int(self.path.split("after=")[1])
                    msgs = [m for m in stub.inbox if m["index"] > after]
                    done = any(n == "AgentUserInterface__send_message_to_user" for n, _ in stub.calls)
                    self._json({"messages": msgs, "next": after + 1 + len(msgs), "done": done})
                elif self.path == "/time":
                    self._json({"sim_time": 1727773200.0})
                else:
                    self._json(
                        {
                            "tools": [
                                {"name": n, "parameters": {"type": "object", "properties": {}}}
                                for n in stub.tools
                            ]
                        }
                    )

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.calls.append((body["tool"], body["args"]))
                self._json({"ok": True, "result": "evt-1"})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"


def test_plain_text_reply_is_sent_to_the_user(fake, tmp_path, monkeypatch):
    stub = StubToolApi(
        "Add dinner", ["CalendarApp__add_calendar_event", "AgentUserInterface__send_message_to_user"]
    )
    monkeypatch.setattr(places, "TOOLS_URL", stub.url)
    fake.set_script({"anthropic": [REPLY, {"text": "Dinner is booked."}]})
    provider = make(fake, tmp_path, "anthropic")
    agent = Agent(provider, TOOLS, max_steps=5, max_context_chars=100_000, max_result_chars=1000)
    agent.messages.append(Message("system", "S"))
    agent.run()
    assert stub.calls == [
        ("CalendarApp__add_calendar_event", {"title": "Dinner"}),
        ("AgentUserInterface__send_message_to_user", {"content": "Dinner is booked."}),
    ]
    second = fake.llm_requests()[1]["body"]["messages"]
    assert second[-1]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": second[-2]["content"][1]["id"],
        "content": "evt-1",
        "is_error": False,
    }
    stub.httpd.shutdown()
