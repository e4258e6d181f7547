"""How a session ends: turns judged as ARE's judge decides them, the final judgment on a quiet
environment, and the verdict (first one wins). A base of Session (core.py), kept apart so the
run's operations and its judging read on their own; it uses the session's state and locks."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from gaia2_contract import constants as contract

from ..a2a import ExpertAgents
from ..clock.generation import GenerationClock
from ..judge.hooks import clean_rationale, record_judge_details, turn_in_progress, with_agent_note
from ..processes import start_thread
from .recorder import EventRecorder
from .status import StatusBoard

log = logging.getLogger("gaia2.session")

LOCK_POLL_S = 0.05  # how often the judge, waiting for a tool call, checks whether it is an expert's


class Judging:
    """The judging half of Session: every attribute below is set by Session.__init__."""

    scenario: Any
    judge: Any
    judge_trace: Any
    nb_turns: int
    recorder: EventRecorder
    status: StatusBoard
    env: Any
    outbox: list[dict[str, Any]]
    verdict: dict[str, Any] | None
    done: threading.Event
    generation: GenerationClock
    a2a: ExpertAgents | None
    provider_witness: Callable[[], str | None] | None
    provider_note: Callable[[], str | None] | None
    make_room: Callable[[], None] | None
    _call_lock: threading.Lock
    _state_lock: threading.Lock
    _final_started: bool
    _end_reason: str
    _end_note: str | None

    def sim_time(self) -> float | None:
        raise NotImplementedError

    def _judge_details(self) -> str:
        """Record the judge's model calls and comparisons since the last call; the one-line reason."""
        return record_judge_details(self.judge_trace, self.recorder, self.sim_time())

    def _record_turn(
        self, turn: int, success: bool | None, rationale: str, error: str | None, reason: str | None = None
    ) -> None:
        """`turn` is ARE's index (from 0); what is recorded counts from 1 (`turn_number`)."""
        entry = {
            "turn_number": turn + 1,
            "success": success,
            "rationale": rationale,
            "error": error,
            "judged_at": time.time(),
        }
        reason = self._judge_details() if reason is None else reason
        if reason and success is False:
            entry["reason"] = reason
        self.status.add_turn(entry)
        self.recorder.record("judgment", self.sim_time(), **entry)

    def _on_turn_judged(self, turn: int, success: bool | None, rationale: str, error: str | None) -> None:
        self._record_turn(turn, success, rationale, error)
        if error is not None:
            self._finish(status="error", error=f"judge failed on turn {turn + 1}: {error}")
        elif success is False and turn < self.nb_turns - 1:
            judgment = {"success": False, "rationale": rationale, "failed_turn_number": turn + 1}
            reason = self.status.snapshot()["turns"][-1].get("reason")
            if reason:
                judgment["reason"] = reason
            self._finish(status="failed", judgment=judgment, error=with_agent_note(None))

    def _start_final_judgment(self, why: str, end_reason: str = "completed", note: str | None = None) -> None:
        with self._state_lock:
            if self._final_started or self.verdict is not None:
                return
            self._final_started = True  # from here no tool call changes what is judged
        if end_reason != "completed" and self.provider_witness is not None:
            # An agent that stopped or ran out of time while its provider was failing has no verdict:
            # the relay saw the failure and the runner's own probe confirmed it (never the agent's
            # word, nor what its own requests provoked). The probe may take seconds: the clock
            # stands still meanwhile, and the runner waits longer for a run it sees judging.
            self.status.update(status="judging")
            self._pause()
            unavailable = self.provider_witness()
            if unavailable:
                self._finish(status="error", error=f"{unavailable} (seen by the model relay); {note}")
                return
        if self.provider_note is not None and (seen := self.provider_note()):
            note = f"{seen} (seen by the model relay)" + (f"; {note}" if note else "")  # first: lines get cut
        with self._state_lock:
            self._end_reason, self._end_note = end_reason, note
        log.info("final judgment: %s", why)
        self.status.update(status="judging")  # first: the runner waits longer for a judging run
        start_thread(self._final_judgment, "final-judge", self.make_room)

    def _pause(self) -> None:
        try:
            self.env.pause()
        except Exception:  # noqa: BLE001 - pausing only freezes the clock for the judge
            pass

    def _final_judgment(self) -> None:
        self.generation.close()  # a model call in flight no longer holds (nor resumes) the clock
        if self.a2a is not None:
            self.a2a.stop()  # no expert sub-agent acts after the deadline, nor under the judge
        self._pause()
        turn = self._turn_in_progress()
        try:
            with self._quiet():
                result = self.scenario.validate(self.env)
        except Exception as exc:  # noqa: BLE001 - ARE raising is an infrastructure error
            self._judge_details()  # the judge model's calls so far (a failing provider shows there)
            self._finish(status="error", error=f"ARE validation raised {type(exc).__name__}: {exc}")
            return
        rationale = clean_rationale(result.rationale)
        reason = self._judge_details()
        if result.exception is not None and result.success is not True:
            self._finish(status="error", error=f"judge error: {result.exception}")
        elif result.success is None:
            self._finish(status="error", error=contract.NO_ORACLE_EVENTS_ERROR)
        else:
            turns = self.status.snapshot()["turns"]
            if not turns or turns[-1]["turn_number"] != turn + 1:
                self._record_turn(turn, bool(result.success), rationale, None, reason)
            failed_turn = None if result.success else self._first_failed_turn()
            judgment = {
                "success": bool(result.success),
                "rationale": rationale,
                "failed_turn_number": failed_turn,
            }
            if reason and not result.success:
                judgment["reason"] = reason
            self._finish(
                status=self._end_reason,
                judgment=judgment,
                error=with_agent_note(self._end_note),
            )

    @contextmanager
    def _quiet(self) -> Iterator[None]:
        """Before the judge looks, the agent's tool call in flight finishes, except an
        `expert_agent` call: its stopped sub-agent may wait minutes on its model, past the run's
        deadline, so the judge waits only for the app tool it is running (ExpertAgents.quiet)."""
        while not self._call_lock.acquire(timeout=LOCK_POLL_S):
            if self.a2a is not None and self.a2a.in_call():
                with self.a2a.quiet():
                    yield
                return
        try:
            yield
        finally:
            self._call_lock.release()

    def _first_failed_turn(self) -> int | None:
        """The number (from 1) of the first rejected turn."""
        for turn in self.status.snapshot()["turns"]:
            if turn["success"] is False:
                return turn["turn_number"]
        return self._turn_in_progress() + 1

    def _turn_in_progress(self) -> int:
        return turn_in_progress(self.judge, self.nb_turns)

    def _finish(self, status: str, judgment: dict[str, Any] | None = None, error: str | None = None) -> None:
        """Fix the verdict (first one wins) and stop the clock; main() publishes it once files are flushed."""
        with self._state_lock:
            if self.verdict is not None:
                return
            self.verdict = {
                "status": status,
                "judgment": judgment,
                "error": error,
                "sim_time": self.sim_time(),
            }
            self.verdict["agent_response"] = self.outbox[-1]["content"] if self.outbox else ""
        self.generation.close()
        try:
            self.env.stop()
        except Exception:  # noqa: BLE001 - the verdict is already saved
            log.exception("stopping the environment failed")
        self.done.set()
