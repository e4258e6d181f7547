"""The demo scenarios driven by time and turns: an ENV event the agent must react to, and a
second user turn. Same conventions as demo_scenario_defs.py.

Imported by make_demo_scenarios.py, which exports them with ARE's exporter; see its docstring for
how the files are made and why every id is fixed.
"""

from __future__ import annotations

from are.simulation.apps import CalendarApp, EmailClientV2, MessagingAppV2
from are.simulation.types import EventRegisterer

from demo_apps import make_calendar, make_email, make_messaging
from demo_scenario_defs import DemoScenario


class DemoEnvMessagePickup(DemoScenario):
    """Wait for Emma's message (ENV event, 5 s after the task) giving her landing
    time, then add a pickup event at that time and answer her."""

    scenario_id: str = "demo_env_message_pickup"

    def init_and_populate_apps(self, *args, **kwargs) -> None:
        self.apps = self.base_apps() + [make_messaging(), make_calendar()]

    def build_events_flow(self) -> None:
        msg = self.get_typed_app(MessagingAppV2)
        cal = self.get_typed_app(CalendarApp)
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                "My sister Emma will message me her landing time today. When she "
                "does, add a one-hour calendar event titled 'Pick up Emma at the "
                "airport' starting at her landing time, and reply to her: \"See "
                'you at arrivals!"',
            )
            incoming = (
                msg.create_and_add_message(
                    conversation_id="conv-emma-taylor",
                    sender_id="user-emma-taylor",
                    content="Hi Sam! My flight lands at 17:40 today, terminal 2.",
                )
                .with_id("env-emma-landing-time")
                .depends_on(task, delay_seconds=5)
            )
            add = self.oracle(
                cal.add_calendar_event(
                    title="Pick up Emma at the airport",
                    start_datetime="2024-10-01 17:40:00",
                    end_datetime="2024-10-01 18:40:00",
                ),
                "oracle-add-calendar-event",
                incoming,
            )
            reply = self.oracle(
                msg.send_message(user_id="user-emma-taylor", content="See you at arrivals!"),
                "oracle-reply-emma",
                add,
            )
            done = self.agent_tells_user(
                "oracle-final-answer",
                "Emma lands at 17:40. I added 'Pick up Emma at the airport' from "
                '17:40 to 18:40 and told her: "See you at arrivals!"',
                reply,
            )
        self.events = [task, incoming, add, reply, done]


class DemoMultiTurnEmail(DemoScenario):
    """Turn 1: tell the user Maria's email address. Turn 2: send her an email
    with the given subject and text, then confirm."""

    scenario_id: str = "demo_multi_turn_email"

    def init_and_populate_apps(self, *args, **kwargs) -> None:
        self.apps = self.base_apps() + [make_email()]

    def build_events_flow(self) -> None:
        mail = self.get_typed_app(EmailClientV2)
        with EventRegisterer.capture_mode():
            task1 = self.user_says("user-task-turn-1", "What is Maria Garcia's email address?")
            answer1 = self.agent_tells_user(
                "oracle-answer-turn-1",
                "Maria Garcia's email address is maria.garcia@example.com.",
                task1,
            )
            task2 = self.user_says(
                "user-task-turn-2",
                "Thanks. Send her an email at that address with the subject "
                "'Offsite agenda' and the text \"Hi Maria, the offsite agenda will "
                'be ready by Thursday. Sam"',
                after=answer1,
                delay=2,
            )
            send = self.oracle(
                mail.send_email(
                    recipients=["maria.garcia@example.com"],
                    subject="Offsite agenda",
                    content="Hi Maria, the offsite agenda will be ready by Thursday. Sam",
                ),
                "oracle-send-email",
                task2,
            )
            answer2 = self.agent_tells_user(
                "oracle-answer-turn-2",
                "I emailed Maria (maria.garcia@example.com) with the subject 'Offsite agenda'.",
                send,
            )
        self.events = [task1, answer1, task2, send, answer2]


DYNAMIC: list[type[DemoScenario]] = [DemoEnvMessagePickup, DemoMultiTurnEmail]
