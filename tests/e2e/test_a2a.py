"""Agent2Agent (--a2a-app-prop) in the real image: ARE's seeded choice of apps, the tool surface the
agent gets, an A2A run of the built-in agent against the scripted provider (the agent asks the
Calendar expert, ARE's app agent does the task through the expert relay) with its nested trace, and
the oracle with A2A (ARE's oracle acts on the apps themselves: the same verdict)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from container_probe import run_python
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from gaia2_runner.sandbox.podman_driver import NETWORK_MODE, NETWORK_OPTIONS
from harness_support import CALENDAR_ANSWER, SCENARIOS, run_cli

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

SCENARIO = "demo_calendar_add_event"  # apps: AgentUserInterface, SystemApp, ContactsApp, CalendarApp
EVENT = {
    "title": "Dentist appointment",
    "start_datetime": "2024-10-03 14:00:00",
    "end_datetime": "2024-10-03 15:00:00",
    "location": "Smile Dental, 12 Rue Oberkampf, Paris",
}
TASK = "Add the dentist appointment on 2024-10-03 14:00-15:00 at Smile Dental, 12 Rue Oberkampf, Paris."
KEY = "sk-a2a-e2e-SECRET-4242"

# In the image: our ExpertAgents.apply against ARE's own _apply_a2a_config on fresh loads of the
# scenario, for several seeds and proportions; then the tool surface the agent and harnesses get.
CHECK = r"""
import json, os, sys, pathlib
from gaia2_contract import files_tree
from gaia2_container import places
os.environ["DEMO_FS_PATH"] = str(places.FILESYSTEM_PATH / files_tree.DEMO_FS_DIR)  # before ARE is imported (loader.py)
from are.simulation.agents.default_agent.app_agent import AppAgent
from are.simulation.environment import Environment, EnvironmentConfig
from are.simulation.scenario_runner import _apply_a2a_config
from are.simulation.scenarios.config import ScenarioRunnerConfig
from gaia2_container.daemon.loader import load_scenario
from gaia2_container.daemon.a2a import A2ASettings, ExpertAgents
from gaia2_container.daemon.session.toolbox import Toolbox
from gaia2_container.runtimes.gaia2_cli.surface import build_surface

path = pathlib.Path("/tmp/scenario.json")
path.write_text(sys.argv[1])

def fresh(seed):
    scenario = load_scenario(path).scenario
    scenario.seed = seed
    env = Environment(config=EnvironmentConfig(oracle_mode=False, queue_based_loop=False, exit_when_no_events=False,
                                               time_increment_in_seconds=scenario.time_increment_in_seconds))
    return scenario, env

def experts(prop, keep=False):
    return ExpertAgents(A2ASettings(prop, "openai-compat", "m", None), lambda *a, **k: 0, "http://127.0.0.1:9/v1",
                        "sk-gaia2-placeholder-x", keep_app_tools=keep)

choices = {}
for prop, seeds in ((0.5, range(3)), (1.0, range(1))):  # seeds 0 and 1 pick different apps at 0.5
    for seed in seeds:
        ours, env = fresh(seed)
        mine = experts(prop)
        mine.apply(ours, env)
        theirs, env2 = fresh(seed)
        _apply_a2a_config(ScenarioRunnerConfig(a2a_app_prop=prop), theirs, env2)
        names = sorted(a.name for a in theirs.apps if isinstance(a, AppAgent))
        assert sorted(mine.expert_apps()) == names, (prop, seed, mine.expert_apps(), names)
        assert theirs.has_a2a_augmentation and ours.has_a2a_augmentation
        choices.setdefault(prop, set()).add(tuple(names))
print("CHOICES", json.dumps({str(k): sorted(v) for k, v in choices.items()}))

scenario, env = fresh(0)
mine = experts(1.0, keep=True)
mine.apply(scenario, env)
env.register_apps(scenario.apps)  # what env.run does first
agent_tools = sorted(s.name for s in Toolbox(env.get_tools()).specs())
oracle_tools = sorted(s.name for s in Toolbox(env.get_tools() + mine.extra_tools()).specs())
surface = build_surface(s.to_dict() for s in Toolbox(env.get_tools()).specs())
print("TOOLS", json.dumps(agent_tools))
print("ORACLE", json.dumps(oracle_tools))
print("SURFACE", json.dumps({name: sorted(c.subcommands) for name, c in surface.items()}))

# ARE refuses a scenario with no app it may replace (ValueError): our apply makes it the run's one-line error.
from gaia2_container.daemon.a2a import A2AError
bare, env = fresh(0)
bare.apps = [a for a in bare.apps if a.name in ("AgentUserInterface", "SystemApp")]
try:
    experts(1.0).apply(bare, env)
    print("REFUSED", json.dumps(None))
except A2AError as exc:
    print("REFUSED", json.dumps(str(exc)))
print("ALL-OK")
"""


def _lines(text: str, tag: str):
    return json.loads(next(line for line in text.splitlines() if line.startswith(tag + " "))[len(tag) + 1 :])


def test_ares_choice_and_the_tool_surface(images, sandbox):
    scenario = (SCENARIOS / f"{SCENARIO}.json").read_text()
    _, text = run_python(
        sandbox, ORACLE_IMAGE, CHECK, scenario, network_mode=NETWORK_MODE, network_options=NETWORK_OPTIONS
    )
    assert "ALL-OK" in text, text[-4000:]
    choices = _lines(text, "CHOICES")
    # Half of the two candidate apps: one, picked by the seed (both are picked for some seed); all at 1.0.
    assert sorted(choices["0.5"]) == [["CalendarApp"], ["ContactsApp"]], choices
    assert choices["1.0"] == [["CalendarApp", "ContactsApp"]], choices
    tools = _lines(text, "TOOLS")
    assert "CalendarApp__expert_agent" in tools and "ContactsApp__expert_agent" in tools, tools
    assert not [
        t
        for t in tools
        if t.startswith(("CalendarApp__", "ContactsApp__")) and not t.endswith("__expert_agent")
    ]
    assert "AgentUserInterface__send_message_to_user" in tools
    assert "CalendarApp__add_calendar_event" in _lines(
        text, "ORACLE"
    )  # the oracle acts on the apps themselves
    surface = _lines(text, "SURFACE")
    assert surface["calendar"] == ["expert-agent"] and surface["contacts"] == ["expert-agent"], surface
    refused = _lines(text, "REFUSED")
    assert refused and "No valid apps" in refused and "\n" not in refused, refused


def blob(tool: str, arguments: dict) -> dict:
    """A reply of the sub-agent's model in ARE's JSON action format (ARE's app agent prompt asks for it)."""
    return {
        "text": f"Thought: I act.\nAction:\n{json.dumps({'action': tool, 'action_input': arguments})}<end_action>"
    }


def _events(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()]


def test_built_in_agent_asks_the_calendar_expert_and_the_trace_nests_its_work(images, fake, tmp_path):
    fake.set_script(
        {
            "chat": [
                {
                    "tool_calls": [{"name": "CalendarApp__expert_agent", "arguments": {"task": TASK}}]
                },  # the agent
                blob("CalendarApp__add_calendar_event", EVENT),  # ARE's app agent, through the expert relay
                blob("final_answer", {"answer": "task completed"}),
                {
                    "tool_calls": [
                        {
                            "name": "AgentUserInterface__send_message_to_user",
                            "arguments": {"content": CALENDAR_ANSWER},
                        }
                    ]
                },
                {"text": "Done."},
            ]
        }
    )
    run = run_cli("llm", SCENARIO, tmp_path / "out", fake, KEY, "/v1", extra=("--a2a-app-prop", "1"))
    assert run.proc.returncode == 0 and run.result.get("success") is True, run.explain()
    events = _events(run.out)
    expert = next(
        e for e in events if e["kind"] == "tool_call" and e.get("tool") == "CalendarApp__expert_agent"
    )
    assert expert["call_id"] and expert["args"] == {"task": TASK} and expert["ok"] is True, expert
    assert "task completed" in json.dumps(expert["result"])
    nested = [e for e in events if e.get("parent_call_id") == expert["call_id"]]
    assert [e["kind"] for e in nested] == ["llm_call", "tool_call", "llm_call"], nested
    add = nested[1]
    assert (add["app"], add["function"], add["ok"], add["a2a_app"]) == (
        "CalendarApp",
        "add_calendar_event",
        True,
        "CalendarApp",
    )
    assert add["args"]["title"] == EVENT["title"]
    first = nested[0]
    assert first["http_status"] == 200 and first["model"] == "fake-model"
    # Simulated generation time (measured by default) holds the clock for the agent's calls only: ARE's
    # app agents get no pause/resume, so the sub-agent's calls run on the clock and carry no sim span.
    assert all("sim_duration_s" not in e for e in nested if e["kind"] == "llm_call"), nested
    assert run.result["sim_generation_time"]["calls_held"] <= len(fake.llm_requests()) - 2, run.result
    assert TASK in json.dumps(first["request"]) and "<end_action>" in json.dumps(
        first["request"]
    )  # ARE's prompt
    # The sub-agent's calls reached the provider with the configured key; nothing the run wrote holds it.
    sub = [r for r in fake.llm_requests() if "final_answer" in json.dumps(r["body"])]
    assert sub and all(r["headers"].get("authorization") == f"Bearer {KEY}" for r in sub)
    for path in run.root.rglob("*"):
        if path.is_file():
            data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            assert KEY.encode() not in data, path
    assert run.run_config["config"]["agent"]["a2a_app_prop"] == 1.0, run.run_config["config"]["agent"]
    assert sorted(run.result["a2a"]["apps"]) == ["CalendarApp", "ContactsApp"], run.result
    assert run.result["a2a_provider"]["calls"] == 2, run.result[
        "a2a_provider"
    ]  # the expert agent's two model calls
    page = (run.out / "trace.html").read_text()
    assert "expert agent" in page and f'data-parent="{expert["call_id"]}"' in page


def test_oracle_with_a2a_is_the_oracle(images, tmp_path):
    """ARE's oracle events act on the original apps: the expert agents are never asked."""
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gaia2_runner.cli",
            "run",
            "--scenario",
            str(SCENARIOS / f"{SCENARIO}.json"),
            "--agent",
            "oracle",
            "--a2a-app-prop",
            "1",
            "--output-dir",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    result = json.loads(sorted(out.rglob("result.json"))[0].read_text())
    assert proc.returncode == 0 and result["success"] is True, (
        proc.stdout[-2000:],
        proc.stderr[-2000:],
        result,
    )
    run_dir = sorted(out.rglob("result.json"))[0].parent
    assert result["a2a"]["app_prop"] == 1.0 and sorted(result["a2a"]["apps"]) == [
        "CalendarApp",
        "ContactsApp",
    ], result
    assert result["a2a_provider"] is None  # no expert relay: the oracle never asks an expert
    calls = [e for e in _events(run_dir) if e["kind"] == "tool_call"]
    assert "add_calendar_event" in [e["function"] for e in calls] and not [
        e for e in calls if e.get("parent_call_id")
    ]


RUN_TIMEOUT_S, SUB_AGENT_DELAY_S = 20, 240  # the sub-agent's second model call outlives the run by far
# The relay waits for one answer 0.75 x RUN_TIMEOUT_S (15 s, budget.CALL_WINDOW_SHARE): a second call
# starting after FIRST_ANSWER_DELAY_S is still unanswered at the run's timeout (10 + 15 > 20).
FIRST_ANSWER_DELAY_S = 10


def test_an_expert_call_at_the_deadline_is_stopped_and_the_run_judged(images, fake, tmp_path):
    """The agent asks the Calendar expert; the sub-agent adds the event, then its model takes
    SUB_AGENT_DELAY_S to answer. At the run's timeout the final judgment stops the sub-agent and
    judges at once (it does not wait for the expert call): a verdict (timeout), long before that
    answer; no later sub-agent call reaches the provider, no later write reaches the apps."""
    fake.set_script(
        {
            "chat": [
                {
                    "tool_calls": [{"name": "CalendarApp__expert_agent", "arguments": {"task": TASK}}]
                },  # the agent
                # ARE's app agent, through the expert relay; its first answer comes late enough that the
                # relay's wait for the second (a share of the run's limit) would end after the run's timeout
                {**blob("CalendarApp__add_calendar_event", EVENT), "delay_s": FIRST_ANSWER_DELAY_S},
                {
                    **blob("CalendarApp__add_calendar_event", {**EVENT, "title": "Too late"}),
                    "delay_s": SUB_AGENT_DELAY_S,
                },
                blob("final_answer", {"answer": "task completed"}),
                {"text": "Done."},
            ]
        }
    )
    run = run_cli(
        "llm",
        SCENARIO,
        tmp_path / "out",
        fake,
        KEY,
        "/v1",
        extra=("--a2a-app-prop", "1", "--timeout", str(RUN_TIMEOUT_S)),
    )
    assert run.proc.returncode == 0 and run.result.get("status") == "timeout", run.explain()
    assert run.result.get("success") in (True, False), run.explain()  # judged: a verdict, not `unresponsive`
    events = _events(run.out)
    judged = next(e for e in events if e["kind"] == "judgment")
    asked = next(e for e in events if e["kind"] == "provider_call")  # the agent's call that asked the expert
    assert judged["wall_time"] - asked["wall_time"] < SUB_AGENT_DELAY_S, (asked, judged)
    expert = [e for e in events if e["kind"] == "tool_call" and e.get("tool") == "CalendarApp__expert_agent"]
    assert expert == [], expert  # judged without waiting for the expert call to return
    writes = [e for e in events if e.get("parent_call_id") and e["kind"] == "tool_call"]
    assert [w["args"]["title"] for w in writes] == [EVENT["title"]], (
        writes
    )  # nothing written after the judgment
    # the agent's one request, then the sub-agent's two: the delayed one was the last, the stopped
    # sub-agent asked no more (and the judgment needed no model: the message count differs)
    assert len(fake.llm_requests()) == 3, [r["time"] - asked["wall_time"] for r in fake.llm_requests()]
