"""The bundled demo scenario most end-to-end tests drive (examples/scenarios/demo_calendar_add_event.json):
its file, the event it asks for, the answer that solves it, and the scripted model replies doing so."""

from __future__ import annotations

from pathlib import Path

SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_calendar_add_event.json"
ANSWER = (
    "Done: 'Dentist appointment' is in your calendar on 2024-10-03 from 14:00 to 15:00 "
    "at Smile Dental, 12 Rue Oberkampf, Paris."
)
EVENT = {
    "title": "Dentist appointment",
    "start_datetime": "2024-10-03 14:00:00",
    "end_datetime": "2024-10-03 15:00:00",
    "location": "Smile Dental, 12 Rue Oberkampf, Paris",
}
ADD = {"tool_calls": [{"name": "CalendarApp__add_calendar_event", "arguments": EVENT}]}
SEND = {
    "tool_calls": [{"name": "AgentUserInterface__send_message_to_user", "arguments": {"content": ANSWER}}]
}
SOLVE = {"by_turn": [ADD, SEND]}  # each run's conversation gets its own next step, whatever the interleaving
