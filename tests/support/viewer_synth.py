"""Synthetic output directories for the viewer's tests and benchmark: realistic files, no containers.

Trace bodies come from tests/fake_llm/wire.py, the same wire formats the fake provider serves.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from fake_llm import wire

FORMATS = [
    "chat",
    "chat_sse",
    "responses",
    "responses_sse",
    "anthropic",
    "anthropic_sse",
    "gemini",
    "gemini_sse",
    "gemini_array",
]
XSS = "<script>alert(1)</script>"


def body(fmt: str, reply: dict[str, Any], usage: dict[str, int], model: str = "m-1") -> tuple[str, str, str]:
    """(provider, url, raw_response) for one reply in one wire format."""

    def joined(chunks: Any) -> str:
        return b"".join(chunks).decode()

    if fmt == "chat":
        return (
            "openai-compat",
            "http://llm/v1/chat/completions",
            json.dumps(wire.chat_json(reply, model, usage)),
        )
    if fmt == "chat_sse":
        return (
            "openai-compat",
            "http://llm/v1/chat/completions",
            joined(wire.chat_sse(reply, model, usage, True)),
        )
    if fmt == "responses":
        return (
            "openai",
            "https://api.openai.com/v1/responses",
            json.dumps(wire.responses_json(reply, model, usage)),
        )
    if fmt == "responses_sse":
        return (
            "openai",
            "https://api.openai.com/v1/responses",
            joined(wire.responses_sse(reply, model, usage)),
        )
    if fmt == "anthropic":
        return (
            "anthropic",
            "https://api.anthropic.com/v1/messages",
            json.dumps(wire.anthropic_json(reply, model, usage)),
        )
    if fmt == "anthropic_sse":
        return (
            "anthropic",
            "https://api.anthropic.com/v1/messages",
            joined(wire.anthropic_sse(reply, model, usage)),
        )
    if fmt == "gemini":
        return (
            "gemini",
            "https://gen.googleapis.com/v1beta/models/g:generateContent",
            json.dumps(wire.gemini_json(reply, model, usage)),
        )
    if fmt == "gemini_sse":
        return (
            "gemini",
            "https://gen.googleapis.com/v1beta/models/g:streamGenerateContent?alt=sse",
            joined(wire.gemini_sse(reply, model, usage)),
        )
    if fmt == "gemini_array":
        docs = [line.decode()[6:].strip() for line in wire.gemini_sse(reply, model, usage)]
        return (
            "gemini",
            "https://gen.googleapis.com/v1beta/models/g:streamGenerateContent",
            "[" + ",\r\n".join(docs) + "]",
        )
    raise ValueError(fmt)


def trace_lines(
    n_calls: int, rng: random.Random, task: str, fmts: list[str] | None = None
) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful assistant. " * 20},
        {"role": "user", "content": task},
    ]
    lines = []
    t = 1_732_222_222.0
    for seq in range(n_calls):
        fmt = (fmts or FORMATS)[seq % len(fmts or FORMATS)] if fmts else rng.choice(FORMATS)
        last = seq == n_calls - 1
        reply = (
            {"text": "All done: the event is booked for Tuesday 10:00."}
            if last
            else {
                "text": f"Step {seq}: let me look that up.",
                "tool_calls": [
                    {
                        "name": "CalendarApp__search_events",
                        "arguments": {"query": f"dentist {seq}", "limit": 5},
                    }
                ],
            }
        )
        usage = {"input": 900 + 350 * seq, "output": 40 + rng.randint(0, 80), "cached": 512 if seq else 0}
        provider, url, raw = body(fmt, reply, usage)
        lines.append(
            {
                "seq": seq,
                "timestamp": t,
                "type": "llm_call",
                "provider": provider,
                "model": "m-1",
                "url": url,
                "latency_ms": 800.0 + rng.randint(0, 1500),
                "http_status": 200,
                "attempts": 1,
                "request": {"model": "m-1", "messages": list(messages), "tools": [{"type": "function"}] * 12},
                "raw_response": raw,
                "usage": {
                    "input_tokens": usage["input"],
                    "output_tokens": usage["output"],
                    "cache_read_tokens": usage["cached"],
                },
            }
        )
        messages.append({"role": "assistant", "content": reply["text"]})
        messages.append(
            {
                "role": "tool",
                "tool_call_id": f"call_{seq}",
                "content": json.dumps([{"id": seq, "title": "Dentist"}]),
            }
        )
        t += 2.5
    return lines


def events(task: str, n_calls: int, tool_result: Any = "ok", answer: str = "Booked.") -> list[dict[str, Any]]:
    t, sim = 1_732_222_221.0, 1_727_773_200.0
    evs: list[dict[str, Any]] = [
        {
            "kind": "env_event",
            "event_id": "user-task-turn-1",
            "event_type": "USER",
            "app": "AgentUserInterface",
            "function": "send_message_to_agent",
            "args": {"content": task},
            "ok": True,
            "error": None,
        },
        {"kind": "notification", "sender": "user", "content": f"Message: {task}", "source": "scenario"},
    ]
    for i in range(max(n_calls - 1, 1)):
        evs.append(
            {
                "kind": "tool_call",
                "app": "CalendarApp",
                "function": "search_events",
                "args": {"query": f"dentist {i}"},
                "write": False,
                "ok": True,
                "result": tool_result,
                "error": None,
                "duration_ms": 1.2,
            }
        )
    evs.append(
        {
            "kind": "tool_call",
            "app": "AgentUserInterface",
            "function": "send_message_to_user",
            "args": {"content": answer},
            "write": True,
            "ok": True,
            "result": None,
            "error": None,
            "duration_ms": 0.5,
        }
    )
    evs.append({"kind": "agent_message", "content": answer, "turn_number": 1})
    evs.append(
        {
            "kind": "judgment",
            "turn_number": 1,
            "success": True,
            "rationale": "matches the oracle",
            "error": None,
        }
    )
    for seq, ev in enumerate(evs):
        ev.update(seq=seq, wall_time=t + 2.5 * seq + 0.1, sim_time=sim + seq)
    return evs


def result_doc(
    scenario_id: str, success: bool | None, status: str = "completed", actions: int = 3
) -> dict[str, Any]:
    return {
        "scenario_id": scenario_id,
        "success": success,
        "status": status,
        "error": None if success is not None else "scenario timed out inside the container",
        "failure_reasons": [] if success else ["turn 1: the agent booked the wrong day"],
        "judgment": {"success": success, "rationale": "", "failed_turn_number": None}
        if success is not None
        else None,
        "agent_actions": actions,
        "turns": [{"turn_number": 1, "success": success, "rationale": "r", "error": None}],
        "timings": {"start_s": 0.3, "ready_s": 4.0, "run_s": 20.0, "collect_s": 0.1, "total_s": 24.4},
        "image": "localhost/gaia2-agent:latest",
        "runtime": "agent",
        "container_id": "c0ffee",
        "started_at": "2026-01-01T00:00:00+00:00",
        "finished_at": "2026-01-01T00:00:24+00:00",
    }


def write_jsonl(path: Path, docs: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")


def write_scenario(
    directory: Path,
    scenario_id: str,
    rng: random.Random,
    *,
    state: str = "pass",
    n_calls: int = 3,
    task: str = "Book the dentist on Tuesday at 10.",
    tool_result: Any = "ok",
    answer: str = "Booked.",
    fmts: list[str] | None = None,
) -> Path:
    """state: pass, fail, error, running (no result.json yet)."""
    directory.mkdir(parents=True, exist_ok=True)
    write_jsonl(directory / "events.jsonl", events(task, n_calls, tool_result, answer))
    if n_calls:
        write_jsonl(directory / "trace.jsonl", trace_lines(n_calls, rng, task, fmts))
    (directory / "agent.log").write_text("agent started\n")
    (directory / "daemon_status.json").write_text(
        json.dumps(
            {
                "scenario_id": scenario_id,
                "status": "running" if state == "running" else "completed",
                "turn_number": 1,
                "nb_turns": 1,
                "started_at": 1.0,
                "agent_actions": 2,
            }
        )
    )
    if state != "running":
        success = {"pass": True, "fail": False, "error": None}[state]
        (directory / "result.json").write_text(
            json.dumps(result_doc(scenario_id, success, "timeout" if success is None else "completed"))
        )
        (directory / "agent_response.txt").write_text(answer)
    return directory


def dataset_tree(
    root: Path,
    n: int,
    *,
    splits: tuple[str, ...] = ("search", "time"),
    pass_at: int = 1,
    seed: int = 7,
    n_calls: tuple[int, int] = (2, 5),
) -> list[Path]:
    """`n` scenarios spread over `splits`, in run_1..run_k when pass_at > 1, with run_config.json."""
    rng = random.Random(seed)
    dirs = []
    run_dirs = [root] if pass_at <= 1 else [root / f"run_{i}" for i in range(1, pass_at + 1)]
    ids = [(splits[i % len(splits)], f"scenario_{i:05d}") for i in range(n)]
    for run_dir in run_dirs:
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "run_config.json").write_text(
            json.dumps(
                {
                    "runner_version": "0.1.0",
                    "image": "localhost/gaia2-agent:latest",
                    "run_index": 1,
                    "pass_at": pass_at,
                    "started_at": "2026-01-01T00:00:00+00:00",
                    "finished_at": None,
                    "config": {
                        "agent": {"provider": "anthropic", "model": "claude-x"},
                        "judge": {"provider": "openai", "model": "j"},
                    },
                    "scenario_count": n,
                    "scenarios": [
                        {"scenario_id": s, "split": sp, "path": f"/d/{sp}/{s}.json"} for sp, s in ids
                    ],
                }
            )
        )
        for split, sid in ids:
            state = rng.choices(["pass", "fail", "error"], [6, 3, 1])[0]
            dirs.append(
                write_scenario(run_dir / split / sid, sid, rng, state=state, n_calls=rng.randint(*n_calls))
            )
    return dirs


def run_tree(root: Path, states: dict[str, str]) -> Path:
    """One run (k=1) whose scenario `sid` ended in `states[sid]` (pass, fail, error)."""
    rng = random.Random(1)
    root.mkdir(parents=True)
    (root / "run_config.json").write_text(
        json.dumps(
            {
                "command": "run-dataset",
                "image": "img",
                "pass_at": 1,
                "started_at": "2026-02-03T04:05:06+00:00",
                "config": {
                    "agent": {"provider": "openai", "model": "gpt-x", "runtime": None},
                    "judge": {"provider": None},
                },
                "scenarios": [{"scenario_id": s, "split": "search"} for s in states],
            }
        )
    )
    for sid, state in states.items():
        write_scenario(root / "search" / sid, sid, rng, state=state, n_calls=2)
    return root


def rejudge_tree(
    root: Path,
    verdicts: dict[str, bool | str],
    judge: tuple[str, str] = ("openai", "judge-x"),
    when: str = "2026-11-26T10:00:00+00:00",
) -> Path:
    """What `gaia2-runner judge` leaves in a run_tree: rejudged.json per scenario in `verdicts`
    (True/False, or an error text), rejudge_summary.json, and the re-judge made current."""
    from gaia2_runner.output.read.verdicts import REJUDGED, use

    for sid, new in verdicts.items():
        directory = root / "search" / sid
        old = json.loads((directory / "result.json").read_text())["success"]
        doc = (
            {
                "success": new,
                "reason": "" if new else f"{sid}: re-judged wrong",
                "rationale": f"why {sid}",
                "judge_details": [],
                "error": None,
            }
            if isinstance(new, bool)
            else {"success": None, "reason": "", "rationale": "", "judge_details": [], "error": new}
        )
        (directory / "rejudged.json").write_text(
            json.dumps({**doc, "previous_success": old, "judged_at": when})
        )
    (root / "rejudge_summary.json").write_text(
        json.dumps(
            {
                "generated_at": when,
                "judge_provider": judge[0],
                "judge_model": judge[1],
                "image": "img",
                "counts": {},
                "skipped": [],
                "runs": [],
            }
        )
    )
    use(root.resolve(), REJUDGED)
    return root
