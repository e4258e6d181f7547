"""The built-in LLM agent's loop on what small open models really send (issue 20): tool calls written
as text, empty messages, never a null content back; the trace marks text-parsed calls; the
no-tool-call note. Against the scripted fake provider and a stub tool API, without containers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_agent_providers import StubToolApi, make, traces

from gaia2_container import places
from gaia2_container.runtimes.llm.loop import NO_TOOL_CALL_NOTE, Agent
from gaia2_container.runtimes.llm.messages import Message, Tool, ToolCall
from gaia2_container.runtimes.llm.providers.openai_chat import to_wire
from gaia2_contract import constants as container_contract

ADD = "CalendarApp__add_calendar_event"
SEND = "AgentUserInterface__send_message_to_user"
TOOLS = [Tool(n, "", {"type": "object", "properties": {}}) for n in (ADD, SEND)]
FENCED_ADD = {"text": f'Sure.\n```json\n{{"name": "{ADD}", "arguments": {{"title": "Dinner"}}}}\n```'}
FENCED_SEND = {"text": f'```json\n{{"name": "{SEND}", "arguments": {{"content": "Booked."}}}}\n```'}
EMPTY = {"text": ""}  # Chat Completions "content": null, as llama-server sends an empty message


@pytest.fixture
def stub(monkeypatch):
    api = StubToolApi("Add dinner", [ADD, SEND])
    monkeypatch.setattr(places, "TOOLS_URL", api.url)
    yield api
    api.httpd.shutdown()


def run_agent(fake, tmp_path: Path, provider: str = "openai-compat", max_steps: int = 8) -> Agent:
    agent = Agent(
        make(fake, tmp_path, provider),
        TOOLS,
        max_steps=max_steps,
        max_context_chars=100_000,
        max_result_chars=1000,
        note_path=tmp_path / container_contract.AGENT_NOTE_FILE,
    )
    agent.messages.append(Message("system", "S"))
    agent.run()
    return agent


def test_fenced_calls_run_and_an_empty_message_is_never_sent_back_as_null(fake, tmp_path, stub):
    fake.reject_null_content = True  # as llama-cpp-python's server: a null content is a 500
    fake.set_script({"chat": [FENCED_ADD, EMPTY, FENCED_SEND]})
    agent = run_agent(fake, tmp_path)
    assert stub.calls == [(ADD, {"title": "Dinner"}), (SEND, {"content": "Booked."})]
    requests = fake.llm_requests()
    assert len(requests) == 3
    for req in requests:
        assert all(isinstance(m["content"], str) for m in req["body"]["messages"]), req["body"]["messages"]
    second = requests[1]["body"]["messages"]
    # The model's text stays as it wrote it; the result comes back as a user message.
    assert second[-2] == {"role": "assistant", "content": FENCED_ADD["text"]}
    assert (
        second[-1]["role"] == "user" and second[-1]["content"] == f"[Result of your tool call {ADD}]\nevt-1"
    )
    third = requests[2]["body"]["messages"]
    assert third[-2] == {"role": "assistant", "content": ""} and third[-1]["role"] == "user"
    lines = traces(tmp_path)
    assert [line["http_status"] for line in lines] == [200, 200, 200]
    assert lines[0]["text_tool_calls"] == [
        {"format": "fenced_json", "name": ADD, "arguments": {"title": "Dinner"}, "run": True}
    ]
    assert "text_tool_calls" not in lines[1]
    assert agent.readable_calls == 2 and not (tmp_path / container_contract.AGENT_NOTE_FILE).exists()


@pytest.mark.parametrize("provider", ["openai", "openai-compat", "anthropic", "gemini"])
def test_text_calls_work_on_every_wire(fake, tmp_path, stub, provider):
    route = {"openai": "chat", "openai-compat": "chat", "anthropic": "anthropic", "gemini": "gemini"}[
        provider
    ]
    fake.set_script({route: [FENCED_ADD, EMPTY, FENCED_SEND]})
    run_agent(fake, tmp_path, provider)
    assert [name for name, _ in stub.calls] == [ADD, SEND]
    assert len(traces(tmp_path)) == 3


def test_responses_wire_with_text_calls(fake, tmp_path, stub):
    fake.set_script({"responses": [FENCED_ADD, EMPTY, FENCED_SEND]})
    agent = Agent(make(fake, tmp_path, "openai", api="responses"), TOOLS, 8, 100_000, 1000)
    agent.messages.append(Message("system", "S"))
    agent.run()
    assert [name for name, _ in stub.calls] == [ADD, SEND]
    for req in fake.llm_requests():
        assert all(item.get("content") is not None for item in req["body"]["input"] if "role" in item)


def test_near_miss_and_extra_calls_are_reported_back_and_not_run(fake, tmp_path, stub):
    near = {
        "text": '<tool_call>\n{"name": "add_calendar_event", "arguments": {"title": "Dinner"}}\n</tool_call>'
    }
    two = {"text": FENCED_ADD["text"] + "\n" + FENCED_SEND["text"]}
    fake.set_script({"chat": [near, two, FENCED_SEND]})
    run_agent(fake, tmp_path)
    assert stub.calls == [(ADD, {"title": "Dinner"}), (SEND, {"content": "Booked."})]
    requests = fake.llm_requests()
    first_result = requests[1]["body"]["messages"][-1]["content"]
    assert "did you mean 'CalendarApp__add_calendar_event'" in first_result and first_result.startswith(
        "[Result of"
    )
    assert "1 more tool call(s) in your reply were not run" in requests[2]["body"]["messages"][-1]["content"]
    lines = traces(tmp_path)
    assert lines[0]["text_tool_calls"][0]["run"] is False and "error" in lines[0]["text_tool_calls"][0]
    assert [e["run"] for e in lines[1]["text_tool_calls"]] == [True, False]


def test_native_calls_win_over_text(fake, tmp_path, stub):
    native = {"text": FENCED_SEND["text"], "tool_calls": [{"name": ADD, "arguments": {"title": "Native"}}]}
    fake.set_script({"chat": [native, {"text": "All done."}]})
    run_agent(fake, tmp_path)
    assert stub.calls == [(ADD, {"title": "Native"}), (SEND, {"content": "All done."})]
    assert "text_tool_calls" not in traces(tmp_path)[0]


def test_a_model_that_never_calls_a_tool_leaves_the_note(fake, tmp_path, stub):
    fake.set_script({"chat": [EMPTY, {"text": "I cannot do that."}]})
    run_agent(fake, tmp_path)
    assert stub.calls == [(SEND, {"content": "I cannot do that."})]
    note = (tmp_path / container_contract.AGENT_NOTE_FILE).read_text()
    assert note == NO_TOOL_CALL_NOTE.format(replies=2) + "\n"


def test_the_note_is_withdrawn_once_a_call_is_read(fake, tmp_path, stub):
    (tmp_path / container_contract.AGENT_NOTE_FILE).write_text("stale\n")
    fake.set_script({"chat": [FENCED_ADD, {"text": "Done."}]})
    run_agent(fake, tmp_path)
    assert not (tmp_path / container_contract.AGENT_NOTE_FILE).exists()


def test_unreadable_body_is_a_provider_error_not_a_crash(fake, tmp_path):
    from gaia2_container.runtimes.llm.transport import ProviderError

    fake.set_script({"chat": [{"text": "ok"}]})
    provider = make(fake, tmp_path, "openai")

    def broken(_data):
        raise KeyError("function")

    with pytest.raises(ProviderError, match="unreadable response .*KeyError"):
        provider.exchange(f"http://127.0.0.1:{fake.port}/v1/chat/completions", {"model": "m"}, {}, broken, [])
    assert traces(tmp_path)[0]["error"].startswith("unreadable response")


@pytest.mark.parametrize(
    "message",
    [
        Message("assistant", ""),
        Message("assistant", "", [ToolCall("call_1", ADD, {})]),
    ],
)
def test_chat_wire_never_sends_null_content(message):
    wire = to_wire(message)
    assert wire["content"] == "" and json.dumps(wire).count("null") == 0
