"""The end of a run: stop the agent, settle the provider accounts and write the final files, the
final status last (it tells the runner every artifact is complete)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from gaia2_contract import constants as contract

from .. import places
from ..jsonable import encodable
from .agent.files import TRACE_CAP_BYTES, copy_agent_file
from .agent.process import AgentProcess
from .are_dump import write_are_trace
from .http.routes import DaemonState
from .session.core import Session

if TYPE_CHECKING:
    from .relay import Relay

log = logging.getLogger("gaia2.daemon")


def finish_run(
    state: DaemonState, session: Session, agent: AgentProcess | None, relays: list[Relay | None]
) -> dict[str, Any]:
    """Write the run's files once its session is done; returns the published verdict. `relays`:
    the agent's first (its record is the trace), then the expert agents'."""
    if agent is not None:
        agent.stop(grace_s=3.0)
    for ledger in [r.ledger for r in relays if r is not None]:
        ledger.charge_in_flight()  # the account is published now: calls still out cost their reservation
    verdict = dict(session.verdict or {"status": "error", "error": "session ended without a verdict"})
    verdict["sim_generation_time"] = session.generation.summary()
    judge_fault = _judge_fault(state.loaded)
    if judge_fault and verdict.get("status") == "error":  # the job stops, as for the agent's provider
        verdict["judge_fault"] = {"kind": "configuration", "reason": judge_fault}
    _finish_trace(relays[0] if relays else None)
    (places.OUTPUT_PATH / contract.AGENT_RESPONSE_FILE).write_text(
        encodable(verdict.get("agent_response") or ""), encoding="utf-8"
    )
    write_are_trace(session, state.runtime, places.OUTPUT_PATH / contract.ARE_TRACE_FILE)
    state.recorder.close()
    # Published last: a final status tells the runner every artifact is complete.
    state.status.update(**verdict)
    return verdict


def _judge_fault(loaded: Any) -> str | None:
    """The judge's configuration fault (its provider refused the runner's own probe too), else None."""
    trace = getattr(loaded, "judge_trace", None)
    return getattr(getattr(trace, "calls", None), "fault", None)


def _finish_trace(relay: Relay | None) -> None:
    """The relay's record is the trace when it recorded anything: the agent's own
    $HOME/trace.jsonl then is not collected, so it can neither replace nor hide the record.
    Otherwise (the built-in LLM runtime, no relay, a relay never used) the agent's file is copied,
    read as the agent, never through its links (agent/files.py), capped."""
    if relay is not None and relay.trace is not None and relay.trace.close():
        log.info(
            "trace.jsonl: %d calls recorded by the model relay; $HOME/%s not collected",
            relay.trace.lines,
            contract.TRACE_FILE,
        )
        return
    copy_agent_file(contract.TRACE_FILE, places.OUTPUT_PATH / contract.TRACE_FILE, TRACE_CAP_BYTES)
