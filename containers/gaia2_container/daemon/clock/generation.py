"""Simulated generation time: the scenario's clock holds while the agent's model answers.

ARE's default agent (gaia2-run, `simulated_generation_time_mode`) calls `env.pause()` before each
model call and `env.resume_with_offset(offset)` after it, where the offset is the generation's
duration (`measured`) or a constant (`fixed`): while the model thinks, no simulated time passes and
no scenario event fires; the time is then added at once (events that fell due fire on the resume's
tick). The offset is simulated seconds, independent of how fast the clock otherwise runs, so with
`--time-speed F` a model call of d wall seconds costs d simulated seconds, not F·d.

Here the model relay does it for every runtime (built-in agent, ARE's agent, harnesses, their
sub-agents), through ARE's own `pause` / `resume_with_offset`:

- concurrency: the clock holds while ANY call is in flight; a busy period (from the first call
  starting to the last one ending) is charged once: its wall span (measured: the union of the
  calls' intervals) or N seconds (fixed:N), however many calls overlapped in it.
- tool calls made during a busy period (a harness's parallel sub-agent) first get the time charged
  so far (measured: the wall span up to now; fixed: the period's N), so they land at the time they
  would have had, and ARE's `wait_for_notification` jumps inside a period are kept (the clock is
  held again after them).
- a failed call (429, 5xx, transport error, timeout) costs nothing, as in ARE (its agent resumes
  with offset 0 when the engine raises): the clock is held while it is in flight and resumed with
  0; in a busy period only the wall spans of calls that answered (2xx) are charged (a call still
  in flight when a tool call is charged counts as answering: the tool call must land somewhere).
  A provider fault is never charged to the model.
- abuse: a call that never ends holds the clock, never the run: the run's wall timeout still ends
  it, and `close()` (the final judgment) charges what was held and never resumes the clock under
  the judge. Only calls through the relay count: the judge's own model calls never touch it.
- `off`, the oracle's manual clock, or no environment: nothing is held; spans still report the
  simulated times they saw.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from gaia2_contract import constants as contract
from gaia2_contract.generation_time import FIXED, MEASURED, OFF, GenerationTime, parse_generation_time

log = logging.getLogger("gaia2.clock")


def setting_from_env(raw: str | None) -> GenerationTime:
    """ENV_SIM_GENERATION_TIME (unset: measured); ValueError naming the variable otherwise."""
    try:
        return parse_generation_time(raw)
    except ValueError as exc:
        raise ValueError(f"{contract.ENV_SIM_GENERATION_TIME} {exc}") from None


class CallSpan:
    """One model call as the clock saw it; `end()` (idempotent) releases its hold and returns the
    trace's fields: `sim_started_at` and `sim_duration_s` (simulated seconds from its start to its
    end, after the charge when it ended its busy period)."""

    def __init__(
        self, clock: GenerationClock, sim_started: float | None, held: bool, wall_started: float = 0.0
    ) -> None:
        self.clock, self.sim_started, self.held = clock, sim_started, held
        self.wall_started = wall_started
        self.wall_ended: float | None = None  # set when it ends
        self.charged = True  # whether its wall span may be charged (a failed call's may not)
        self._fields: dict[str, Any] | None = None

    def end(self, charge: bool = True) -> dict[str, Any]:
        """`charge`: the call answered (2xx); a failed one ends with nothing charged for it."""
        if self._fields is None:
            sim_ended = self.clock._end(self, charge)
            duration = (
                None
                if self.sim_started is None or sim_ended is None
                else round(sim_ended - self.sim_started, 3)
            )
            self._fields = {"sim_started_at": self.sim_started, "sim_duration_s": duration}
        return self._fields


class GenerationClock:
    """Holds ARE's environment `env` while model calls are in flight (see the module docstring).
    `wall`: the wall clock measured generation time is read from (monotonic seconds)."""

    def __init__(
        self,
        setting: GenerationTime,
        env: Any = None,
        manual: bool = False,
        wall: Callable[[], float] = time.monotonic,
    ) -> None:
        self.setting = setting
        self.env = env
        self.active = setting.holds and env is not None and not manual
        self.wall = wall
        self._lock = threading.RLock()
        self._in_flight = 0
        self._held = False  # we paused the environment and must resume it
        self._closed = False
        self._period_started = 0.0
        self._charged_until = 0.0  # measured: wall time up to which the period is charged
        self._period_charged = False  # fixed: the period's N is charged
        self._period_spans: list[CallSpan] = []  # the held calls of the current busy period
        self.calls = 0  # model calls that held the clock
        self.held_s = 0.0  # wall seconds the clock stood still
        self.advanced_s = 0.0  # simulated seconds charged for them

    @classmethod
    def off(cls) -> GenerationClock:
        """One that never holds (a session before the daemon sets the run's)."""
        return cls(GenerationTime(OFF))

    def sim_now(self) -> float | None:
        if self.env is None:
            return None
        try:
            return round(float(self.env.time_manager.time()), 3)
        except Exception:  # noqa: BLE001 - a time we cannot read is left out of the trace
            return None

    # ---- the relay's hook ------------------------------------------------------------------
    def begin(self) -> CallSpan:
        """A model call starts (call right before it leaves for the provider)."""
        with self._lock:
            sim = self.sim_now()
            if not self.active or self._closed:
                return CallSpan(self, sim, held=False)
            self.calls += 1
            self._in_flight += 1
            if self._in_flight == 1:
                self._pause()
            span = CallSpan(self, sim, held=True, wall_started=self.wall())
            self._period_spans.append(span)
            return span

    def _end(self, span: CallSpan, charge: bool) -> float | None:
        with self._lock:
            span.wall_ended, span.charged = self.wall(), charge
            if span.held and not self._closed:
                self._in_flight -= 1
                if self._in_flight == 0 and self._held:
                    charged_s = self._charge()
                    self._stop_holding()
                    self.advanced_s += charged_s
                    self.env.resume_with_offset(charged_s)  # ARE's resume: adds the time, then ticks
            return self.sim_now()

    # ---- the daemon's hooks ----------------------------------------------------------------
    @contextlib.contextmanager
    def tool_call(self) -> Iterator[None]:
        """Around an agent's tool call: one made during a busy period gets the time charged so far
        first, and the clock is held again after it (a `wait_for_notification` resumes ARE's
        time manager when its jump ends)."""
        with self._lock:
            if self._held:
                charge = self._charge()
                if charge:
                    self.env.time_manager.add_offset(charge)  # paused: time() shows it at once
                    self.advanced_s += charge
                    self.env.tick()  # as resume_with_offset does: what fell due fires now
        try:
            yield
        finally:
            with self._lock:
                if self._held and not self.env.time_manager.is_paused:
                    self.env.time_manager.pause()
                    self._charged_until = self.wall()

    def close(self) -> None:
        """The run is being judged or is over: charge what was held, and leave the environment
        paused (the judge pauses it anyway); later calls hold nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._held:
                charge = self._charge()
                self._stop_holding()
                self.env.time_manager.add_offset(charge)
                self.advanced_s += charge
                log.info("run ends with %d model call(s) in flight: the clock stays paused", self._in_flight)

    def summary(self) -> dict[str, Any]:
        """For the daemon's status and result.json: the mode and what it did."""
        with self._lock:
            return {
                "mode": str(self.setting),
                "calls_held": self.calls,
                "held_s": round(self.held_s, 3),
                "advanced_s": round(self.advanced_s, 3),
            }

    # ---- inside ----------------------------------------------------------------------------
    def _pause(self) -> None:
        env = self.env
        before = env.state
        env.pause()  # ARE's: a no-op unless the environment runs (the judge may have paused it)
        self._held = env.state is not before
        self._period_started = self._charged_until = self.wall()
        self._period_charged = False
        self._period_spans = [span for span in self._period_spans if span.wall_ended is None]

    def _charge(self) -> float:
        """The time owed for the busy period since the last charge (simulated seconds): only the
        spans of calls that answered (or are still in flight) count."""
        now = self.wall()
        spans = [
            (s.wall_started, now if s.wall_ended is None else s.wall_ended)
            for s in self._period_spans
            if s.wall_ended is None or s.charged
        ]
        if self.setting.mode == MEASURED:
            charge, self._charged_until = _union_s(spans, self._charged_until, now), now
        elif self.setting.mode == FIXED and not self._period_charged and spans:
            charge, self._period_charged = float(self.setting.seconds or 0.0), True
        else:
            charge = 0.0
        return charge

    def _stop_holding(self) -> None:
        self.held_s += max(0.0, self.wall() - self._period_started)
        self._held = False
        self._period_spans = [span for span in self._period_spans if span.wall_ended is None]


def _union_s(spans: list[tuple[float, float]], since: float, until: float) -> float:
    """Seconds of [since, until] covered by at least one of the (start, end) spans."""
    total, reached = 0.0, since
    for start, end in sorted(spans):
        start, end = max(start, reached), min(end, until)
        if end > start:
            total, reached = total + end - start, end
    return total
