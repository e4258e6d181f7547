"""Agent2Agent on the trace page: an expert sub-agent's model and tool calls (`parent_call_id`) are
shown inside the agent's `expert_agent` call (`call_id`) that asked for them, not in the timeline."""

from __future__ import annotations

import json
import random
from pathlib import Path

from gaia2_runner.output.read.record import load_runs
from gaia2_runner.viewer import Site
from gaia2_runner.viewer.trace_parts import nest_expert_calls
from viewer_synth import write_scenario

REPLY = 'Thought: I add it.\nAction:\n{"action": "CalendarApp__add_calendar_event"}<end_action>'


def _a2a_run(root: Path) -> Path:
    directory = write_scenario(root / "s", "s", random.Random(5), state="pass", task="Add the dentist.")
    events = [json.loads(line) for line in (directory / "events.jsonl").read_text().splitlines()]
    t = events[-1]["wall_time"]
    nested = {"parent_call_id": "a2a-1", "a2a_app": "CalendarApp"}
    events += [
        {
            "kind": "llm_call",
            "wall_time": t + 1,
            "model": "small-model",
            "http_status": 200,
            "latency_ms": 40.0,
            "request": {"messages": [{"role": "user", "content": "Add the dentist."}]},
            "raw_response": json.dumps(
                {
                    "choices": [{"message": {"role": "assistant", "content": REPLY}}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 7},
                }
            ),
            **nested,
        },
        {
            "kind": "tool_call",
            "wall_time": t + 2,
            "app": "CalendarApp",
            "function": "add_calendar_event",
            "tool": "CalendarApp__add_calendar_event",
            "args": {"title": "Dentist <b>"},
            "write": True,
            "ok": True,
            "result": "event-7",
            **nested,
        },
        {
            "kind": "llm_call",
            "wall_time": t + 3,
            "model": "small-model",
            "http_status": 503,
            "latency_ms": 5.0,
            "request": {},
            "raw_response": "not json",
            "error": "upstream down",
            **nested,
        },
        {
            "kind": "tool_call",
            "wall_time": t + 4,
            "app": "CalendarApp",
            "function": "expert_agent",
            "tool": "CalendarApp__expert_agent",
            "args": {"task": "Add the dentist."},
            "write": False,
            "ok": True,
            "result": "task completed",
            "call_id": "a2a-1",
        },
        {
            "kind": "tool_call",
            "wall_time": t + 5,
            "app": "X",
            "function": "y",
            "tool": "X__y",
            "args": {},
            "ok": True,
            "result": 1,
            "parent_call_id": "a2a-404",
        },  # its parent is not in the file: stays in the timeline
    ]
    (directory / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return directory


def test_sub_agent_steps_are_inside_the_expert_call(tmp_path: Path) -> None:
    directory = _a2a_run(tmp_path)
    Site(tmp_path).refresh()
    page = (directory / "trace.html").read_text()
    start = page.index('data-parent="a2a-1"')
    block = page[start : page.index("</ol>", start)]
    assert "expert agent of CalendarApp" in page[start - 200 : start + 400] and "3 step(s)" in block
    assert block.index("small-model") < block.index("add_calendar_event") < block.index("upstream down")
    assert "Thought: I add it." in block and "Dentist &lt;b&gt;" in block and "<b>" not in block
    assert "HTTP 503" in block
    assert "X__y" in page and "X__y" not in block  # an orphan stays in the timeline


def test_nesting_keeps_everything_else_and_orders_steps() -> None:
    def item(kind, index, **e):
        return {"type": "event", "kind": kind, "order": (1, index), "e": e}

    parent = item("tool_call", 3, call_id="a2a-2")
    items = [
        item("tool_call", 2, parent_call_id="a2a-2"),
        item("llm_call", 1, parent_call_id="a2a-2", raw_response="[]"),
        parent,
        item("notification", 4),
    ]
    kept = nest_expert_calls(items)
    assert kept == [parent, items[3]]
    assert [s["order"] for s in parent["nested"]] == [(1, 1), (1, 2)] and parent["nested"][0]["reply"] == ""


def test_the_runs_calls_and_tokens_count_the_sub_agents_calls(tmp_path: Path) -> None:
    """ls, compare and export show the run's whole use of models: the agent's calls and its
    expert sub-agents' (their `llm_call` events), tokens summed over both."""
    plain = write_scenario(
        tmp_path / "plain" / "s", "s", random.Random(5), state="pass", task="Add the dentist."
    )
    (before,) = [row for row, _ in load_runs(plain.parent)]
    _a2a_run(tmp_path / "a2a")
    (after,) = [row for row, _ in load_runs(tmp_path / "a2a")]
    assert after.llm_calls == before.llm_calls + 2
    assert (after.tokens_in - (before.tokens_in or 0), after.tokens_out - (before.tokens_out or 0)) == (
        100,
        7,
    )
