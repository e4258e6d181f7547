"""The trace page reads top to bottom: verdict and failure diff first, the task once, then the
timeline with provider calls folded, the judge's model calls in their own section, and calls to
tools the model was never offered counted and badged as tool errors."""

from __future__ import annotations

import csv
import json
import random
import re
from pathlib import Path

from gaia2_runner.analysis import export_rows, load_rows
from gaia2_runner.output.read.trace_parsers import parse_line
from gaia2_runner.output.read.trace_parsers.offered import offered_names
from gaia2_runner.viewer import Site
from viewer_synth import write_jsonl, write_scenario

TASK = "Book the dentist on Tuesday at 10 and tell me when it is done."
REASON = "add_calendar_event.start_datetime: expected 2024-10-03 14:00:00, got 2024-10-03 13:00:00"
RATIONALE = "The agent event does not match the oracle event (in ARE words)."


def _failed_run(root: Path) -> Path:
    """A failure as the runner writes it: the one-line reason in result.json's turns and
    failure_reasons, ARE's rationale, the judge_detail diff, a judgment event, a provider call."""
    directory = write_scenario(root / "s", "s", random.Random(3), state="fail", task=TASK)
    result = json.loads((directory / "result.json").read_text())
    result.update(
        turns=[{"turn_number": 1, "success": False, "rationale": RATIONALE, "reason": REASON}],
        judgment={"success": False, "rationale": RATIONALE, "failed_turn_number": 1},
        failure_reasons=[f"turn 1: {REASON}"],
    )
    (directory / "result.json").write_text(json.dumps(result))
    events = [json.loads(line) for line in (directory / "events.jsonl").read_text().splitlines()]
    for event in events:
        if event["kind"] == "judgment":
            event.update(success=False, rationale=RATIONALE, reason=REASON)
    events += [
        {
            "kind": "judge_detail",
            "turn_number": 1,
            "success": False,
            "reason": REASON,
            "counts": {"ok": True, "differing": {}},
            "oracle_events": [
                {
                    "oracle_event_id": "o1",
                    "tool": "CalendarApp__add_calendar_event",
                    "event_type": "AGENT",
                    "args": {"start_datetime": "2024-10-03 14:00:00"},
                    "matched": False,
                    "agent_event_id": None,
                    "attempts": [
                        {
                            "agent_event_id": "a1",
                            "args": {"start_datetime": "2024-10-03 13:00:00"},
                            "ok": False,
                            "checks": [{"checker": "datetime_checker", "ok": False, "arg": "start_datetime"}],
                        }
                    ],
                },
                {
                    "oracle_event_id": "o2",
                    "tool": "AgentUserInterface__send_message_to_user",
                    "event_type": "AGENT",
                    "args": {"content": "Done"},
                    "matched": True,
                    "agent_event_id": "a2",
                    "attempts": [
                        {
                            "agent_event_id": "a2",
                            "args": {"content": "Booked"},
                            "ok": True,
                            "checks": [
                                {"checker": "equality_checker", "ok": False, "prefilter": True},
                                {"checker": "user_message_checker", "ok": True, "soft": True},
                            ],
                        }
                    ],
                },
            ],
        },
        {
            "kind": "provider_call",
            "url": "https://api.example/v1/chat/completions",
            "http_status": 200,
            "error": None,
            "duration_ms": 812.4,
            "burst": False,
            "outcome": "ok",
            "wall_time": events[2]["wall_time"] + 0.5,
        },
    ]
    (directory / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return directory


def test_verdict_and_diff_come_first_and_each_text_once(tmp_path: Path) -> None:
    directory = _failed_run(tmp_path)
    Site(tmp_path).refresh()
    page = (directory / "trace.html").read_text()
    order = [page.index(f'id="{section}"') for section in ("verdict", "task")] + [page.index("<h2>Timeline")]
    assert order == sorted(order)
    assert page.index("diff-table") < page.index('id="task"')  # the failure diff is in the verdict, first
    assert page.count(REASON) == 1 and page.count(RATIONALE) == 1  # used to be 4x and 2x
    assert page.count(TASK) == 1  # used to be 3x: the task section, the USER event, the notification
    assert "[the task: shown above]" in page


def test_provider_calls_are_folded_not_raw_json(tmp_path: Path) -> None:
    directory = _failed_run(tmp_path)
    Site(tmp_path).refresh()
    page = (directory / "trace.html").read_text()
    item = re.search(r'<li class="item k-provider_call".*?</li>', page, re.S).group(0)
    assert '<details class="provider">' in item and "HTTP 200" in item and "812 ms" in item
    assert '"outcome"' not in item and "<pre" not in item  # no JSON dump of the event


def test_the_judges_model_calls_have_their_own_section(tmp_path: Path) -> None:
    directory = _failed_run(tmp_path)
    Site(tmp_path).refresh()
    page = (directory / "trace.html").read_text()
    judge = page[page.index('id="judge"') : page.index("</section>", page.index('id="judge"'))]
    rows = re.findall(r'<td class="fn">([^<]+)</td><td class="dim">([^<]*)</td><td>([^<]+)</td>', judge)
    assert rows == [("AgentUserInterface__send_message_to_user", "a2", "user_message_checker")]
    assert page.count('<details class="llm"') == 3  # the agent's own calls only


JUDGE_CALL = {
    "kind": "judge_call",
    "model": "judge-x",
    "step": "user_message_checker",
    "duration_ms": 640,
    "messages": [
        {"role": "system", "content": "You compare an agent's message with the oracle's."},
        {"role": "user", "content": "<agent_text>\ncontent: Booked\n</agent_text>"},
    ],
    "response": "- Evaluation: the same booking [[Success]]",
    "prompt_tokens": 1210,
    "completion_tokens": 14,
    "error": None,
}


def test_the_judges_own_calls_are_folded_in_the_judge_section(tmp_path: Path) -> None:
    directory = _failed_run(tmp_path)
    events = (directory / "events.jsonl").read_text()
    failing = {
        **JUDGE_CALL,
        "response": None,
        "error": "JudgeCallError: judge provider openai failed: 503",
        "prompt_tokens": None,
        "completion_tokens": None,
    }
    (directory / "events.jsonl").write_text(
        events + json.dumps(JUDGE_CALL) + "\n" + json.dumps(failing) + "\n"
    )
    Site(tmp_path).refresh()
    page = (directory / "trace.html").read_text()
    judge = page[page.index('id="judge"') : page.index("</section>", page.index('id="judge"'))]
    calls = re.findall(r'<details class="judge-call">.*?</details>', judge, re.S)
    assert len(calls) == 2 and "judge-call" not in page.replace(judge, "")  # not in the timeline
    assert "user_message_checker" in calls[0] and "1,210 → 14 tokens" in calls[0] and "640 ms" in calls[0]
    assert "&lt;agent_text&gt;" in calls[0] and "[[Success]]" in calls[0] and "judge-x" in calls[0]
    assert "s-error" in calls[1] and "judge provider openai failed: 503" in calls[1]
    assert "did not record the calls" not in judge


def test_a_rejudges_calls_are_listed_after_the_runs_own() -> None:
    from gaia2_runner.viewer.trace_parts import judge_calls

    rejudged = {"judge_calls": [{**JUDGE_CALL, "model": "judge-y"}, "not a call", {"messages": "nonsense"}]}
    calls = judge_calls([JUDGE_CALL, {"kind": "tool_call"}], rejudged)
    assert [(c["rejudge"], c["model"]) for c in calls] == [(False, "judge-x"), (True, "judge-y"), (True, "")]
    assert calls[2]["messages"] == [] and calls[2]["duration_ms"] is None


def _trace_line(tools: list[dict], called: str, text_calls: list | None = None) -> str:
    line = {
        "seq": 0,
        "type": "llm_call",
        "timestamp": 1.0,
        "request": {"messages": [{"role": "user", "content": "hi"}], "tools": tools},
        "raw_response": json.dumps(
            {
                "choices": [
                    {
                        "message": {
                            "content": None,
                            "tool_calls": [
                                {
                                    "id": "c1",
                                    "type": "function",
                                    "function": {"name": called, "arguments": "{}"},
                                }
                            ],
                        },
                        "finish_reason": "tool_calls",
                    }
                ]
            }
        ),
    }
    if text_calls is not None:
        line["text_tool_calls"] = text_calls
    return json.dumps(line)


def test_offered_tool_names_in_each_wire_format() -> None:
    assert offered_names({"tools": [{"type": "function", "function": {"name": "A__x"}}]}) == {"A__x"}  # chat
    assert offered_names({"tools": [{"type": "function", "name": "A__x"}]}) == {"A__x"}  # responses
    assert offered_names({"tools": [{"name": "A__x", "input_schema": {}}]}) == {"A__x"}  # anthropic
    assert offered_names({"tools": [{"functionDeclarations": [{"name": "A__x"}, {"name": "B__y"}]}]}) == {
        "A__x",
        "B__y",
    }
    assert (
        offered_names({"tools": [{"type": "function", "name": "A__x"}, {"type": "web_search"}]}) is None
    )  # unnamed: unknowable
    assert offered_names({"messages": []}) is None


def test_a_made_up_tool_name_is_a_tool_error(tmp_path: Path) -> None:
    offered = [{"type": "function", "function": {"name": "CalendarApp__add_calendar_event"}}]
    assert parse_line(_trace_line(offered, "CalendarApp__invent_event")).unknown_tools == [
        "CalendarApp__invent_event"
    ]
    assert parse_line(_trace_line(offered, "CalendarApp__add_calendar_event")).unknown_tools == []
    text = [
        {
            "format": "bare_json",
            "name": "Foo__bar",
            "arguments": {},
            "run": False,
            "error": "unknown tool 'Foo__bar': call one of the tools you were given, by its full name",
        }
    ]
    assert parse_line(_trace_line(offered, "CalendarApp__add_calendar_event", text)).unknown_tools == [
        "Foo__bar"
    ]
    directory = write_scenario(tmp_path / "s", "s", random.Random(1), state="fail")
    write_jsonl(directory / "trace.jsonl", [json.loads(_trace_line(offered, "CalendarApp__invent_event"))])
    Site(tmp_path).refresh()
    page = (directory / "trace.html").read_text()
    assert re.search(
        r'<dt>tool errors</dt><dd><span class="badge s-fail">1</span> <span class="dim">\(1 to unknown tools\)',
        page,
    )
    assert (
        'class="badge s-fail" title="the model called a tool it was not offered: a tool error">'
        "unknown tool CalendarApp__invent_event<" in page
    )


def test_index_and_export_count_unknown_tools_like_the_trace_page(tmp_path: Path) -> None:
    """One tool call that raised (events.jsonl) and one call to a tool never offered (trace.jsonl):
    the record, the index's table, the export and the trace page all say 2."""
    offered = [{"type": "function", "function": {"name": "CalendarApp__add_calendar_event"}}]
    directory = write_scenario(tmp_path / "s", "s", random.Random(1), state="fail")
    events = [json.loads(line) for line in (directory / "events.jsonl").read_text().splitlines()]
    assert not [e for e in events if e.get("kind") == "tool_call" and e.get("ok") is False]
    write_jsonl(
        directory / "events.jsonl",
        events
        + [
            {
                "kind": "tool_call",
                "ok": False,
                "error": "ValueError: x",
                "wall_time": events[-1]["wall_time"] + 1,
            }
        ],
    )
    write_jsonl(directory / "trace.jsonl", [json.loads(_trace_line(offered, "CalendarApp__invent_event"))])
    assert [r.tool_errors for r in load_rows(tmp_path)] == [2]
    dest, _ = export_rows(tmp_path, "csv", tmp_path / "runs.csv")
    assert [row["tool_errors"] for row in csv.DictReader(dest.open())] == ["2"]
    Site(tmp_path).refresh()
    index = (tmp_path / "index.html").read_text()
    assert '<td data-v="2"><span class="badge s-fail">2</span></td>' in index
    page = (directory / "trace.html").read_text()
    assert re.search(
        r'<dt>tool errors</dt><dd><span class="badge s-fail">2</span> <span class="dim">\(1 to unknown tools\)',
        page,
    )
