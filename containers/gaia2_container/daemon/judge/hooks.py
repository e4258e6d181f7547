"""How the session hears from ARE's judge and from a runtime that gave up, without changing either:
a per-turn listener on the judge, ARE's rationale cleaned for people, the runtime's own last word
and its note."""

from __future__ import annotations

from typing import Any

from gaia2_contract import constants as contract

from ..agent.files import ERROR_CAP_BYTES, read_agent_file


def agent_error_reason(limit: int = 500) -> str:
    """First line of $HOME/agent_error.txt, where a runtime says why it gave up (e.g. provider down).

    Read as the agent, never through its links, at most ERROR_CAP_BYTES (agent_files)."""
    data = read_agent_file(contract.AGENT_ERROR_FILE, ERROR_CAP_BYTES)
    lines = data.decode("utf-8", errors="replace").splitlines()
    return lines[0][:limit].strip() if lines else ""


def with_agent_note(note: str | None, limit: int = 300) -> str | None:
    """`note` plus the first line of $HOME/agent_note.txt, labelled "agent note:", for a judged end.

    The agent writes that file (e.g. the built-in LLM agent: its model never made a readable tool
    call), so it is only ever a note next to ARE's verdict: read as the agent like agent_error.txt,
    one line, cut at `limit` characters, never a status, a verdict or an infrastructure error."""
    data = read_agent_file(contract.AGENT_NOTE_FILE, ERROR_CAP_BYTES)
    lines = data.decode("utf-8", errors="replace").splitlines()
    said = lines[0][:limit].strip() if lines else ""
    if not said:
        return note
    return f"{note}; agent note: {said}" if note else f"agent note: {said}"


def clean_rationale(value: Any) -> str:
    """ARE stringifies a missing failure as 'None'; an empty rationale reads better."""
    return "" if value in (None, "None") else str(value)


def listen_to_turns(judge: Any, callback: Any) -> None:
    """Report every per-turn verdict of ARE's judge without changing what it decides.

    ARE wires `judge.trigger_condition` into the scenario's turn conditions; swapping the
    instance's class for a thin subclass lets us observe each call of the judge.
    """
    base = type(judge)

    class TurnReportingJudge(base):  # type: ignore[misc, valid-type]
        def __call__(self, env: Any) -> Any:
            try:
                judgment = base.__call__(self, env)
            except Exception as exc:
                callback(self.state.turn_idx, None, "", f"{type(exc).__name__}: {exc}")
                raise
            intermediate = self.state.turn_idx < self.state.nb_turns - 1
            if intermediate:
                callback(self.state.turn_idx, bool(judgment.success), clean_rationale(judgment.failure), None)
            return judgment

    TurnReportingJudge.__name__ = f"TurnReporting{base.__name__}"
    judge.__class__ = TurnReportingJudge


def record_judge_details(judge_trace: Any, recorder: Any, sim_time: float | None) -> str:
    """Record the judge model's calls (`judge_call`) and what ARE's judge compared (`judge_detail`)
    since the last call; the failed turn's one-line reason ("" without one)."""
    reason = ""
    for call in judge_trace.calls.take() if judge_trace is not None else []:
        recorder.record("judge_call", sim_time, **call)
    for detail in judge_trace.take() if judge_trace is not None else []:
        recorder.record("judge_detail", sim_time, **detail)
        reason = detail.get("reason") or reason
    return reason


def turn_in_progress(judge: Any, nb_turns: int) -> int:
    """ARE's index (from 0) of the turn the agent is in: the one after the last ARE judged. An
    agent that stops early is in an earlier turn than the last (ARE then refuses to validate)."""
    judged = getattr(getattr(judge, "state", None), "turn_idx", None)
    if not isinstance(judged, int):
        return nb_turns - 1
    return max(0, min(judged + 1, nb_turns - 1))
