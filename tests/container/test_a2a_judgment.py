"""The final judgment and an `expert_agent` call in flight (Agent2Agent): the judgment stops the
sub-agents and does not wait for the call (whose sub-agent may wait minutes on its model, past the
run's deadline), gets its verdict, and after it the sub-agent can neither touch an app nor reach
its model through the expert relay. In-process: the daemon's Session, ExpertAgents and expert
relay, a real provider endpoint that holds the sub-agent's model call; ARE's app agent is stood in
for by an object with ARE's stop() contract (BaseAgent.stop sets stop_event)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from gaia2_container.daemon.a2a import SCENARIO_OVER, A2ASettings, ExpertAgents, ExpertsStopped
from gaia2_container.daemon.relay import experts as a2a_relay
from gaia2_container.daemon.session.core import Session
from gaia2_container.daemon.session.recorder import EventRecorder
from gaia2_container.daemon.session.status import StatusBoard

KEY = "sk-a2a-judgment-SECRET"
GUARD_S = 30  # a hang guard only: every wait below ends on a condition


class SlowProvider(BaseHTTPRequestHandler):
    """A chat completions endpoint that holds each call until the test releases it."""

    entered = threading.Event()
    release = threading.Event()
    calls = 0

    def log_message(self, *_args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).calls += 1
        type(self).entered.set()
        type(self).release.wait(GUARD_S)
        answer = json.dumps({"choices": [{"message": {"role": "assistant", "content": "more"}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


class Calendar:
    def __init__(self) -> None:
        self.events: list[str] = []


class AddEvent:
    """The shape of ARE's AppToolAdapter around a write tool."""

    name = "Calendar__add_calendar_event"

    def __init__(self, calendar: Calendar) -> None:
        self.app_tool = SimpleNamespace(
            app_name="Calendar", func_name="add_calendar_event", write_operation=True
        )
        self._calendar = calendar

    def forward(self, title: str) -> str:
        self._calendar.events.append(title)
        return f"event-{len(self._calendar.events)}"


class SubAgent:
    """ARE's app agent loop in brief: act, then ask the model; stop() (BaseAgent.stop) ends it at
    the next step, as ARE's loop checks stop_event between steps."""

    def __init__(self, tool: AddEvent, url: str, placeholder: str) -> None:
        self.tool, self.url, self.placeholder = tool, url, placeholder
        self.stop_event = threading.Event()
        self.refusals: list[int] = []

    def stop(self) -> None:
        self.stop_event.set()

    def run(self, task: str) -> str:
        while not self.stop_event.is_set():
            self.tool.forward(title=task)
            answer = httpx.post(
                self.url + "/chat/completions",
                headers={"Authorization": f"Bearer {self.placeholder}"},
                json={"model": "small", "messages": [{"role": "user", "content": task}]},
                timeout=GUARD_S,
            )
            if answer.status_code != 200:
                self.refusals.append(answer.status_code)
        return "stopped"


class Scenario:
    """ARE's scenario.validate, recording what the apps held when the judge looked."""

    nb_turns = 1

    def __init__(self, calendar: Calendar, call: threading.Thread) -> None:
        self.calendar, self.call = calendar, call
        self.seen: dict[str, Any] = {}

    def validate(self, _env: Any) -> Any:
        self.seen = {"events": list(self.calendar.events), "call_in_flight": self.call.is_alive()}
        return SimpleNamespace(success=False, rationale="the event is wrong", exception=None)


class Env:
    time_manager = SimpleNamespace(time=lambda: 100.0)

    def pause(self) -> None:
        pass

    def stop(self) -> None:
        pass


class Toolbox:
    """The agent's one tool: the Calendar expert (ARE's AppAgent.expert_agent runs the sub-agent)."""

    def __init__(self, sub_agent: SubAgent) -> None:
        self._sub_agent = sub_agent

    def spec(self, name: str) -> Any:
        return SimpleNamespace(
            app_class="AppAgent",
            app="Calendar",
            are_function="expert_agent",
            function="expert_agent",
            write=False,
        )

    def call(self, _name: str, args: dict[str, Any]) -> Any:
        return self._sub_agent.run(args["task"])


@pytest.fixture
def provider():
    SlowProvider.entered, SlowProvider.release, SlowProvider.calls = threading.Event(), threading.Event(), 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowProvider)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    SlowProvider.release.set()
    server.shutdown()


def test_the_judgment_stops_an_expert_call_in_flight_and_gets_its_verdict(provider: str, tmp_path: Path):
    recorder = EventRecorder(tmp_path / "events.jsonl")
    status = StatusBoard(tmp_path / "status.json", "s", "agent")
    experts = ExpertAgents(A2ASettings(1.0, "openai-compat", "small", None), recorder.record, None, None)
    relay, placeholder, url = a2a_relay.start(
        "openai-compat",
        "small",
        provider,
        KEY,
        {},
        write=experts.record_llm_call,
        on_fault=lambda _r: None,
        port=0,
    )
    experts.on_stop = relay.refuse_all  # as main.py wires it
    calendar = Calendar()
    tool = AddEvent(calendar)
    experts._observe("Calendar", tool)  # as apply() wraps each of the sub-agent's app tools
    sub_agent = SubAgent(tool, url, placeholder)
    experts.experts = [SimpleNamespace(name="Calendar", app_agent=sub_agent)]

    outcome: dict[str, Any] = {}
    call = threading.Thread(
        target=lambda: outcome.update(session.call_tool("Calendar__expert_agent", {"task": "dentist"}))
    )
    session = Session(SimpleNamespace(scenario=Scenario(calendar, call), judge=None), recorder, status, None)
    session.env, session.toolbox, session.a2a = Env(), Toolbox(sub_agent), experts

    call.start()
    assert SlowProvider.entered.wait(GUARD_S)  # the sub-agent acted once and waits on its model
    session._start_final_judgment("time limit", end_reason="timeout", note="scenario did not finish")
    assert session.done.wait(GUARD_S)  # the judgment did not wait for the expert call

    assert session.verdict["status"] == "timeout" and session.verdict["judgment"]["success"] is False
    assert session.scenario.seen == {"events": ["dentist"], "call_in_flight": True}
    assert sub_agent.stop_event.is_set()  # ARE's BaseAgent.stop on every expert's app agent

    # After the judgment: no app tool runs, no model call leaves through the expert relay.
    with pytest.raises(ExpertsStopped, match="final judgment"):
        tool.forward(title="late")
    refused = httpx.post(
        url + "/chat/completions",
        headers={"Authorization": f"Bearer {placeholder}"},
        json={"model": "small", "messages": []},
        timeout=GUARD_S,
    )
    assert refused.status_code == a2a_relay.JUDGING_STATUS and SCENARIO_OVER in refused.text
    assert SlowProvider.calls == 1

    SlowProvider.release.set()  # the model answers at last: the stopped sub-agent ends, the call too
    call.join(GUARD_S)
    assert not call.is_alive() and outcome["ok"] is True and outcome["result"] == "stopped"
    assert calendar.events == ["dentist"] and SlowProvider.calls == 1
    recorder.close()
    lines = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    expert = next(e for e in lines if e["kind"] == "tool_call" and e["tool"] == "Calendar__expert_agent")
    nested = [e["kind"] for e in lines if e.get("parent_call_id") == expert["call_id"]]
    assert nested[0] == "tool_call" and KEY not in json.dumps(lines)


def test_a_sub_agent_tool_call_running_when_the_judgment_starts_finishes_before_the_judge_looks():
    """ExpertAgents.quiet waits for the app tool a sub-agent is running; stop() refuses the next."""
    experts = ExpertAgents(A2ASettings(1.0, "openai-compat", "small", None), lambda *a, **k: 0, None, None)
    inside, go_on, order = threading.Event(), threading.Event(), []

    class Slow(AddEvent):
        def forward(self, title: str) -> str:
            inside.set()
            go_on.wait(GUARD_S)
            order.append("tool done")
            return "ok"

    tool = Slow(Calendar())
    experts._observe("Calendar", tool)
    worker = threading.Thread(target=lambda: tool.forward(title="x"))
    worker.start()
    assert inside.wait(GUARD_S)
    experts.stop()

    def look() -> None:
        with experts.quiet():
            order.append("judge looks")

    judge = threading.Thread(target=look)
    judge.start()
    go_on.set()
    judge.join(GUARD_S)
    worker.join(GUARD_S)
    assert order == ["tool done", "judge looks"]
