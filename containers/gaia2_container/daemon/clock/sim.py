"""The simulated clock: ARE's time-based loop, with its wall clock made replaceable.

ARE's Environment ticks once per real second (`_time_based_loop`: tick, sleep 1 s, add
`time_increment - 1`) and its TimeManager measures simulated time as real seconds passed plus an
offset (jumps, pauses). Everything else (event queue, condition checks, the judge's triggers,
`wait_for_notification` jumps) is left to ARE. We change one thing: the "real" clock both read.

- speed F (`GAIA2_TIME_SPEED`, agents): the clock runs F times faster, so a tick is 1/F s of
  wall time and simulated time advances F s per wall second between ticks.
- manual (the built-in oracle only): the clock stands still until the oracle asks it to move
  (`/oracle/advance`); the loop then ticks as fast as the machine allows up to the time asked
  for, or until a scenario event fires. The oracle's calls land at exactly the simulated times it
  waited for, as they would on an infinitely fast machine in real time.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from gaia2_contract.constants import (
    DEFAULT_TIME_SPEED,
)
from gaia2_contract.constants import (
    MAX_TIME_SPEED as MAX_SPEED,
)
from gaia2_contract.constants import (
    MIN_TIME_SPEED as MIN_SPEED,
)

log = logging.getLogger("gaia2.clock")

# Events whose firing ends an /oracle/advance early: the oracle may now have something to do.
_QUIET_TYPES = ("AGENT", "CONDITION", "VALIDATION")


def parse_speed(raw: str | None) -> float:
    """GAIA2_TIME_SPEED: a number in [MIN_SPEED, MAX_SPEED]; anything else is a start-up error."""
    if raw is None or not raw.strip():
        return DEFAULT_TIME_SPEED
    try:
        speed = float(raw)
    except ValueError:
        raise ValueError(f"GAIA2_TIME_SPEED must be a number, got {raw!r}") from None
    if not MIN_SPEED <= speed <= MAX_SPEED:  # also rejects nan
        raise ValueError(f"GAIA2_TIME_SPEED must be between {MIN_SPEED:g} and {MAX_SPEED:g}, got {raw!r}")
    return speed


@functools.cache
def clocked_time_manager() -> type:
    """ARE's TimeManager, same arithmetic, but reading `self.wall()` instead of time.time().

    Built on first use: the daemon's modules import without ARE (the host's tests load them)."""
    from are.simulation.time_manager import TimeManager

    class ClockedTimeManager(TimeManager):
        wall: Callable[[], float] = staticmethod(time.time)  # replaced per instance by SimClock.install
        # ARE's own attribute types (TimeManager.__init__), declared: ARE is untyped here
        real_start_time: float | None
        start_time: float | None
        offset: float
        is_paused: bool
        pause_real_start_time: float | None
        pause_passed_time: float | None
        pause_offset: float

        def real_time_passed(self) -> float:
            if self.real_start_time is None:
                raise Exception("real_start_time cannot be null")
            return self.wall() - self.real_start_time

        def reset(self, start_time: float | None = None) -> None:
            now = self.wall()
            self.start_time = now if start_time is None else start_time
            self.real_start_time = now
            self.offset = 0
            self.is_paused = False
            self.pause_real_start_time = None
            self.pause_passed_time = None

        def pause(self) -> None:
            if not self.is_paused:
                self.pause_real_start_time = self.wall()
                self.pause_passed_time = self.time_passed()
                self.is_paused = True
                self.pause_offset = 0

        def resume(self) -> None:
            if self.is_paused:
                self.offset -= self.wall() - self.pause_real_start_time  # type: ignore[operator]
                self.offset += self.pause_offset
                self.pause_offset = 0
                self.is_paused = False
                self.pause_passed_time = None
                self.pause_real_start_time = None

    return ClockedTimeManager


class SimClock:
    """One scenario's clock: install() before env.run(); advance() only in manual mode."""

    def __init__(self, speed: float = 1.0, manual: bool = False) -> None:
        self.speed = speed
        self.manual = manual
        self._origin = time.time()
        self._virtual = self._origin  # manual mode: the wall clock ARE sees
        self._wake_at: float | None = None  # manual mode: when the loop's current sleep ends
        self._cond = threading.Condition()
        self._drive = threading.Lock()  # one advance at a time
        self.env: Any = None
        # Manual mode: called after every tick advance() runs, so records keep each tick's time.
        self.on_tick: Callable[[], None] | None = None

    @property
    def mode(self) -> str:
        return "manual" if self.manual else "real"

    def wall(self) -> float:
        if self.manual:
            return self._virtual
        return self._origin + (time.time() - self._origin) * self.speed

    def install(self, env: Any) -> None:
        """Point env's TimeManager (shared with every app) and tick loop at this clock.

        At speed 1 outside manual mode ARE's own classes stay untouched."""
        self.env = env
        if self.speed == 1.0 and not self.manual:
            return
        tm = env.time_manager
        tm.__class__ = clocked_time_manager()
        tm.wall = self.wall
        tm.reset(start_time=tm.start_time)
        env._time_based_loop = self._time_based_loop

    # ---- the loop: ARE's _time_based_loop with the one-second sleep through this clock ----------
    def _time_based_loop(self) -> None:
        env = self.env
        while (
            env.duration is None or env.time_manager.time_passed() <= env.duration
        ) and not env.stop_event.is_set():
            if env.exit_when_no_events and env.get_event_queue_length() == 0:
                break
            while env.pause_event.is_set() and not env.stop_event.is_set():
                time.sleep(0.1)  # paused (the judge runs): real time, as in ARE
            env.tick()
            self._sleep(1.0)
            env.time_manager.add_offset(env.time_increment_in_seconds - 1)
            env.tick_count += 1

    def _sleep(self, seconds: float) -> None:
        if not self.manual:
            time.sleep(seconds / self.speed)
            return
        with self._cond:
            self._wake_at = self._virtual + seconds
            self._cond.notify_all()
            while self._virtual < self._wake_at and not self.env.stop_event.is_set():
                self._cond.wait(0.2)
            self._wake_at = None
            self._cond.notify_all()

    # ---- manual mode: the oracle moves the clock -----------------------------------------------
    def advance(self, until: float | None, max_seconds: float = 3600.0) -> dict[str, Any]:
        """Move simulated time to `until` (or by at most `max_seconds`), ticking ARE's loop at every
        second it passes; stop early after a tick in which a scenario event fired, or when the
        loop ends. Returns the simulated time reached and why it stopped."""
        if not self.manual:
            raise RuntimeError("the clock is not manual")
        env = self.env
        with self._drive:
            tm = env.time_manager
            target = until if until is not None else tm.time() + max_seconds
            target = min(target, tm.time() + max_seconds)
            seen = len(env.event_log.list_view())
            reason = "reached"
            while True:
                if not self._loop_alive():
                    reason = "stopped"
                    break
                if tm.is_paused or env.pause_event.is_set():
                    reason = "paused"
                    break
                now = tm.time()
                if now >= target:
                    break
                wake = self._wait_for_sleep()
                if wake is None:
                    reason = "stopped"
                    break
                with self._cond:
                    if now + (wake - self._virtual) > target:  # the next tick is past the target
                        self._virtual += target - now
                        break
                    self._virtual = wake
                    self._cond.notify_all()
                if self._wait_for_next_sleep(wake) is None:
                    reason = "stopped"
                    break
                self._after_tick()
                if self._scenario_event_since(seen):
                    reason = "event"
                    break
            return {"sim_time": round(tm.time(), 3), "reason": reason}

    def _after_tick(self) -> None:
        if self.on_tick is not None:
            try:
                self.on_tick()
            except Exception:  # noqa: BLE001 - records must not stop the clock
                log.exception("recording a tick failed")

    def _loop_alive(self) -> bool:
        env = self.env
        return not env.stop_event.is_set() and env.thread is not None and env.thread.is_alive()

    def _wait_for_sleep(self) -> float | None:
        with self._cond:
            while self._wake_at is None:
                if not self._loop_alive():
                    return None
                self._cond.wait(0.05)
            return self._wake_at

    def _wait_for_next_sleep(self, previous_wake: float) -> float | None:
        with self._cond:
            while self._wake_at is None or self._wake_at <= previous_wake:
                if not self._loop_alive():
                    return None
                self._cond.wait(0.05)
            return self._wake_at

    def _scenario_event_since(self, seen: int) -> bool:
        for event in self.env.event_log.list_view()[seen:]:
            kind = getattr(event.event_type, "value", str(event.event_type))
            if kind not in _QUIET_TYPES:
                return True
        return False
