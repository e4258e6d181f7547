"""One scenario run: ARE's Environment in real time, the agent's tool calls, turns and verdicts.

This mirrors ARE's own ScenarioRunner with an agent (`_run` + `_run_with_agent`), except that the
agent lives in another process and reaches the apps over HTTP. ARE decides everything that defines
the benchmark: the event loop, notifications, the per-turn judge trigger and the final validation.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import nullcontext
from datetime import UTC, datetime
from typing import Any

from ...jsonable import as_text, to_jsonable
from ..a2a import ExpertAgents
from ..clock.generation import GenerationClock
from ..clock.sim import SimClock
from ..judge.hooks import (
    agent_error_reason,
    listen_to_turns,
)
from .event_mirror import EventMirror
from .judging import Judging
from .recorder import EventRecorder
from .status import StatusBoard
from .toolbox import Toolbox

log = logging.getLogger("gaia2.session")

SEND_TO_USER = "AgentUserInterface__send_message_to_user"


class Session(Judging):
    """Owns the Environment; HTTP handlers and the monitor thread call into it."""

    def __init__(
        self,
        loaded: Any,
        recorder: EventRecorder,
        status: StatusBoard,
        timeout_s: float | None,
        clock: SimClock | None = None,
    ) -> None:
        self.scenario = loaded.scenario
        self.judge = loaded.judge
        self.judge_trace = getattr(loaded, "judge_trace", None)
        self.nb_turns: int = int(getattr(self.scenario, "nb_turns", None) or 1)
        self.recorder = recorder
        self.status = status
        self.timeout_s = timeout_s
        self.env: Any = None
        self.toolbox: Toolbox | None = None
        self._call_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self.inbox: list[dict[str, Any]] = []
        self.outbox: list[dict[str, Any]] = []
        self.mirror = EventMirror(recorder)  # ARE's log -> events.jsonl
        self._final_started = False
        self._started_wall = 0.0
        self.done = threading.Event()
        self.verdict: dict[str, Any] | None = None
        self.agent_exit_code: int | None = None
        # Why the run ended, which becomes the final status when the judge decides it:
        # completed (all turns, or ARE's clock ran out), agent_exit, timeout.
        self._end_reason = "completed"
        self._end_note: str | None = None
        # The model relay's verdict on the provider (None: no relay, or the provider was fine), and
        # its note on the agent's own provider trouble (a context overflow), added to a judged end.
        self.provider_witness: Callable[[], str | None] | None = None
        self.provider_note: Callable[[], str | None] | None = None
        # Simulated time: ARE's real-time loop, sped up, or (oracle) moved on demand (clock/sim.py).
        self.clock = clock or SimClock()
        # Called after every tool call and monitor step: keeps the agent's process clock current.
        self.on_time: Callable[[], None] | None = None
        # Frees the pids the agent holds, when the judge finds none to start a thread with.
        self.make_room: Callable[[], None] | None = None
        self._sync_lock = threading.Lock()  # the monitor and the manual clock both mirror ARE's log
        # Simulated generation time (clock/generation.py): holds the clock during model calls.
        self.generation = GenerationClock.off()
        # Agent2Agent (a2a.py): applied to the scenario at start, nests the sub-agents' records.
        self.a2a: ExpertAgents | None = None

    # ---- lifecycle -------------------------------------------------------------------------
    def start(self) -> None:
        from are.simulation.environment import Environment, EnvironmentConfig
        from are.simulation.notification_system import VerboseNotificationSystem
        from are.simulation.types import EnvironmentType

        scenario = self.scenario
        config = EnvironmentConfig(
            oracle_mode=False,
            queue_based_loop=False,
            time_increment_in_seconds=scenario.time_increment_in_seconds,
            exit_when_no_events=False,
        )
        if scenario.start_time and scenario.start_time > 0:
            config.start_time = scenario.start_time
        self.env = Environment(
            environment_type=EnvironmentType.CLI,
            config=config,
            notification_system=VerboseNotificationSystem(),
        )
        if self.judge_trace is not None:
            self.judge_trace.take()  # anything ARE judged while preparing the scenario is not this run
            self.judge_trace.calls.take()
        self.clock.install(self.env)
        self.clock.on_tick = self._sync  # manual clock: record each tick's events as it happens
        if self.a2a is not None:  # as ARE's runner: after making the Environment, before running it
            self.a2a.apply(scenario, self.env)
        self.env.run(scenario, wait_for_end=False)
        aui = self.env.apps.get("AgentUserInterface")
        if aui is not None:
            # As ARE's own agent does: user messages arrive as notifications, never block on input.
            aui.wait_for_user_response = False
        self.toolbox = Toolbox(
            self.env.get_tools() + (self.a2a.extra_tools() if self.a2a is not None else [])
        )
        if self.judge is not None:
            listen_to_turns(self.judge, self._on_turn_judged)
        self._started_wall = time.time()
        self.recorder.sim_clock = self.sim_time
        self.status.update(
            status="running",
            nb_turns=self.nb_turns,
            sim_time=self.sim_time(),
            sim_start=round(self.env.time_manager.start_time, 3),
            clock=self.clock.mode,
            time_speed=self.clock.speed,
        )
        threading.Thread(target=self._monitor, name="monitor", daemon=True).start()

    def sim_time(self) -> float | None:
        return None if self.env is None else round(self.env.time_manager.time(), 3)

    # ---- agent-facing operations ----------------------------------------------------------
    def call_tool(self, name: str, args: dict[str, Any], ends_turn: bool = False) -> dict[str, Any]:
        """Run one tool as ARE's agent would; errors go back to the agent, as in ARE. `ends_turn`:
        a final message ends the turn even when it raised (ARE's default agent ends it so)."""
        assert self.toolbox is not None
        spec = self.toolbox.spec(name)
        if spec is None:
            raise KeyError(name)
        if self.done.is_set():
            return {"ok": False, "error": "the scenario is over: no more tool calls are accepted"}
        if (
            name == SEND_TO_USER
            and self.provider_witness is not None
            and not self._final_started
            and (down := self.provider_witness())
        ):
            # The model could not have written this: its provider was failing (some harnesses print
            # the provider's error as their answer). No verdict, as for an agent that stops then.
            self._finish(
                status="error",
                error=f"{down} (seen by the model relay); the agent's message "
                f"to the user came after it: {str(args.get('content', ''))[:200]!r}",
            )
            return {"ok": False, "error": "the scenario is over: the model provider was failing"}
        with self._call_lock, self.generation.tool_call():
            if self._final_started:  # being judged: what is judged must not change under the judge
                return {"ok": False, "error": "the scenario is over: no more tool calls are accepted"}
            started = time.perf_counter()
            sim_before = self.sim_time()
            expert = (
                self.a2a.expert_call(spec.app_class, spec.app) if self.a2a is not None else nullcontext(None)
            )
            try:
                with expert as call_id:  # an expert_agent call: its sub-agent's records nest under call_id
                    raw = self.toolbox.call(name, args)
                # `text`: str() of what the app returned, which is what ARE's own agent observes.
                outcome: dict[str, Any] = {"ok": True, "result": to_jsonable(raw), "text": as_text(raw)}
            except Exception as exc:  # noqa: BLE001 - tool errors are the agent's to see
                outcome = {"ok": False, "error": f"{type(exc).__name__}: {exc}", "message": as_text(exc)}
            duration_ms = round((time.perf_counter() - started) * 1000, 2)
        self.recorder.record(
            "tool_call",
            sim_before,
            app=spec.app,  # the instance (`Chats`), as ARE logs it
            function=spec.are_function or spec.function,
            tool=name,  # what the agent called: another name in noise mode
            args=args,
            write=spec.write,
            ok=outcome["ok"],
            result=outcome.get("result"),
            error=outcome.get("error"),
            duration_ms=duration_ms,
            **({"call_id": call_id} if call_id else {}),
        )
        self.status.increment("agent_actions")
        self._time_moved()  # wait_for_notification jumps: the agent's next `date` shows it
        if name == SEND_TO_USER and (outcome["ok"] or ends_turn):
            self._on_agent_message(str(args.get("content", "")))
        return outcome

    def notify(self, message: str, sender: str = "user") -> int:
        return self._push_inbox(sender, message, kind="notify")

    def inbox_after(self, after: int) -> list[dict[str, Any]]:
        with self._state_lock:
            return [m for m in self.inbox if m["index"] > after]

    def messages_after(self, after: int) -> list[dict[str, Any]]:
        with self._state_lock:
            return [m for m in self.outbox if m["index"] > after]

    def fired_event_ids(self) -> list[str]:
        return self.mirror.fired_event_ids()

    def logged_event_ids(self) -> list[str]:
        """Ids of every event in ARE's log now (the monitor mirrors them only every 0.1 s, and the
        oracle's manual clock must see an event the moment the tick that fired it is over)."""
        return [event.event_id for event in self.env.event_log.list_view()] if self.env is not None else []

    def end(self, status: str, error: str) -> None:
        """Stop the run from outside (the watchdog: the runner is gone; the relay: a configuration
        fault); no-op once a verdict exists."""
        self._finish(status=status, error=error)

    def provider_fault(self, error: str) -> None:
        """The relay saw a configuration fault: the run ends as an infrastructure error, unless it
        is already being judged (a request sent after the final answer must not undo the verdict)."""
        with self._state_lock:
            if self._final_started:
                return
        self._finish(status="error", error=error)

    def out_of_budget(self, note: str) -> None:
        """The relay refused a call past the token budget: judged on what the agent did, as at the time limit."""
        self._start_final_judgment("token budget", end_reason="timeout", note=note)

    def agent_exited(self, code: int, limit: str | None = None) -> None:
        """An agent that stops, whatever its exit code, is judged on what it did, as ARE judges an
        agent that stops: giving up must never score better than failing. What the agent says
        about why (agent_error.txt) is kept as a note, never trusted as an infrastructure error;
        `limit` (the container limit it met, agent/limits.py) comes first."""
        self.agent_exit_code = code
        self.status.update(agent_exit_code=code)
        if self.done.is_set():
            return
        reason = "; ".join(r for r in (limit, agent_error_reason()) if r)
        note = f"agent runtime exited with code {code} before the scenario ended" + (
            f": {reason}" if reason else ""
        )
        self._start_final_judgment("agent runtime exited", end_reason="agent_exit", note=note)

    # ---- internals ----------------------------------------------------------------------
    def _push_inbox(self, sender: str, content: str, kind: str, timestamp: float | None = None) -> int:
        """`timestamp`: the simulated time ARE stamped the message with (its notification's own)."""
        with self._state_lock:
            index = len(self.inbox)
            now = self.sim_time()
            self.inbox.append(
                {
                    "index": index,
                    "sender": sender,
                    "content": content,
                    "sim_time": now,
                    "timestamp": now if timestamp is None else timestamp,
                    "wall_time": time.time(),
                }
            )
        self.recorder.record("notification", self.sim_time(), sender=sender, content=content, source=kind)
        return index

    def _on_agent_message(self, content: str) -> None:
        with self._state_lock:
            index = len(self.outbox)
            number = index + 1  # turns are numbered from 1 in everything we publish
            self.outbox.append(
                {
                    "index": index,
                    "content": content,
                    "sim_time": self.sim_time(),
                    "wall_time": time.time(),
                    "turn_number": number,
                }
            )
        self.recorder.record("agent_message", self.sim_time(), content=content, turn_number=number)
        self.status.update(turn_number=min(number + 1, self.nb_turns))
        if index + 1 >= self.nb_turns:
            self._start_final_judgment("last turn ended")

    def _monitor(self) -> None:
        """Mirror scenario events and notifications, and end runs that time out or stall."""
        while not self.done.is_set():
            try:
                self._sync()
                self.status.update(sim_time=self.sim_time())
                self._time_moved()
                self._check_limits()
            except Exception:  # noqa: BLE001 - the monitor must outlive one bad event
                log.exception("monitor step failed")
            time.sleep(0.1)
        with self._sync_lock:
            self.mirror.catch_up(self.env.event_log.list_view())

    def _sync(self) -> None:
        """Mirror ARE's new log entries and due notifications into our records and the inbox."""
        with self._sync_lock:
            self.mirror.catch_up(self.env.event_log.list_view())
            self._drain_notifications()

    def _time_moved(self) -> None:
        if self.on_time is not None:
            try:
                self.on_time()
            except Exception:  # noqa: BLE001 - the agent's clock file must not break the run
                log.exception("updating the agent's clock failed")

    def _drain_notifications(self) -> None:
        from are.simulation.notification_system import MessageType

        now = datetime.fromtimestamp(self.env.time_manager.time(), tz=UTC)
        for message in self.env.notification_system.message_queue.get_by_timestamp(now):
            if message.message_type == MessageType.USER_MESSAGE:
                self._push_inbox(
                    "user", message.message, kind="scenario", timestamp=message.timestamp.timestamp()
                )
            elif message.message_type == MessageType.ENVIRONMENT_NOTIFICATION:
                self._push_inbox(
                    "system", message.message, kind="scenario", timestamp=message.timestamp.timestamp()
                )

    def _check_limits(self) -> None:
        if self.done.is_set() or self._final_started:
            return
        if self.timeout_s and time.time() - self._started_wall > self.timeout_s:
            # The agent is still working when its time is up: judged on what it did so far.
            self._start_final_judgment(
                "time limit",
                end_reason="timeout",
                note=f"scenario did not finish within {self.timeout_s:.0f}s",
            )
        elif self.env.thread is not None and not self.env.thread.is_alive():
            # ARE's clock ran out (scenario duration) or a turn was rejected: judge what happened.
            self._start_final_judgment("environment stopped")
