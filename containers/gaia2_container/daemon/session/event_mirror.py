"""ARE's event log, mirrored into events.jsonl as it grows: what the scenario and the apps did.

Agent calls are recorded where they happen (the tool API) and turn checks tick every second (they
are reported as judgments instead), so only the other events are written here; every event's id is
kept, in the order ARE fired them.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from .recorder import EventRecorder


class EventMirror:
    """The part of ARE's log already mirrored; `catch_up` writes what came since."""

    def __init__(self, recorder: EventRecorder) -> None:
        self.recorder = recorder
        self._seen = 0
        self._fired: list[str] = []
        self._lock = threading.Lock()

    def fired_event_ids(self) -> list[str]:
        with self._lock:
            return list(self._fired)

    def catch_up(self, events: Sequence[Any]) -> None:
        """Record `events[seen:]` (ARE's `event_log.list_view()`); the caller serialises calls."""
        from are.simulation.types import EventType

        new = events[self._seen :]
        self._seen = len(events)
        for event in new:
            with self._lock:
                self._fired.append(event.event_id)
            if event.event_type in (EventType.AGENT, EventType.CONDITION):
                continue
            action = getattr(event, "action", None)
            self.recorder.record(
                "env_event",
                getattr(event, "event_time", None),
                event_id=event.event_id,
                event_type=event.event_type.value
                if hasattr(event.event_type, "value")
                else str(event.event_type),
                app=event_app_name(event),
                function=getattr(action, "function_name", None),
                args={k: v for k, v in (getattr(action, "args", None) or {}).items() if k != "self"},
                ok=not event.failed(),
                error=str(event.metadata.exception) if event.failed() else None,
            )


def event_app_name(event: Any) -> str | None:
    """The app instance an event acted on (`Chats`, not `MessagingAppV2`): two instances of one
    class must stay apart in events.jsonl, as they are in ARE's log."""
    try:
        name = event.app_name()
    except Exception:  # noqa: BLE001 - condition checks and odd actions have no app
        name = None
    if name:
        return str(name)
    action = getattr(event, "action", None)
    return getattr(getattr(action, "app", None), "name", None) or getattr(action, "class_name", None)
