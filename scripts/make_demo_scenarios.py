#!/usr/bin/env python3
"""Generate the small Gaia2-style demo scenarios shipped in examples/scenarios/.

Run with the Python that has Meta's ARE installed
(``meta-agents-research-environments==1.2.0``, import name ``are``)::

    /tmp/arevenv/bin/python scripts/make_demo_scenarios.py [OUT_DIR]

OUT_DIR defaults to ``examples/scenarios`` next to this script's parent.

How the files are made
----------------------
Every scenario is an ARE ``Scenario`` subclass: ``init_and_populate_apps``
builds the apps (only Gaia2 apps from ``are.simulation.apps.ALL_APPS``) with
fixed ids, and ``build_events_flow`` declares the events in capture mode: the
first user message is a ``send_message_to_agent`` call turned into a USER
event, environment events are ENV events with exactly one predecessor, and
the expected agent behaviour is a chain of ``.oracle()`` events, each turn
ending with ``AgentUserInterface.send_message_to_user``. The scenario is then
written with ARE's own ``JsonScenarioExporter``.

Post-processing (kept to what ARE 1.2.0's JSON round trip needs)
----------------------------------------------------------------
Oracle action arguments are stored by ARE as ``str(value)``, which the
importer (``Scenario._parse_parameter_value``) cannot always read back:

1. list/dict arguments come out as Python reprs (``['a@b.c']``,
   ``{'phone': '1'}``); the importer parses them with ``json.loads``. They
   are re-encoded as JSON.
2. arguments whose value is ``None`` come out as value ``"None"`` with type
   ``"NoneType"``, which the importer rejects ("Unsupported type
   NoneType"). They are written as value ``null`` / type ``null``, which the
   importer maps back to ``None``.

Determinism fixes (the exporter embeds run-dependent values):

3. ``metadata.annotation.date`` (export wall-clock time) is set to 0.0.
4. in file system app states, ``tmpdir`` (a random host temp path that the
   importer ignores) is removed and directory children are sorted by name
   (the exporter lists them in host directory order).

Event ids are set explicitly with ``.with_id`` and action ids are derived
from them, so that reruns give byte-identical files. Python's string hashing
is pinned (``PYTHONHASHSEED=0``, the script re-executes itself if needed)
because ARE derives per-app RNG seeds from ``hash()``.
"""

from __future__ import annotations

import ast
import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

from are.simulation.apps import (  # noqa: E402
    AgentUserInterface,
    CabApp,
    CalendarApp,
    ContactsApp,
    EmailClientV2,
    MessagingAppV2,
    ShoppingApp,
    SystemApp,
    VirtualFileSystem,
)
from are.simulation.apps.contacts import Contact, Gender, Status  # noqa: E402
from are.simulation.apps.email_client import Email, EmailFolderName  # noqa: E402
from are.simulation.apps.messaging_v2 import ConversationV2, MessageV2  # noqa: E402
from are.simulation.apps.shopping import Item, Product  # noqa: E402
from are.simulation.data_handler.exporter import JsonScenarioExporter  # noqa: E402
from are.simulation.environment import Environment, EnvironmentConfig  # noqa: E402
from are.simulation.scenarios.scenario import Scenario  # noqa: E402
from are.simulation.types import Event, EventRegisterer, EventType  # noqa: E402

# 2024-10-01 09:00:00 UTC
START_TIME = datetime(2024, 10, 1, 9, 0, 0, tzinfo=timezone.utc).timestamp()
DURATION = 300
ORACLE_DELAY = 1  # seconds between consecutive oracle actions

USER_FIRST, USER_LAST = "Sam", "Taylor"
USER_EMAIL = "sam.taylor@example.com"
USER_MSG_ID = "user-sam-taylor"


# --------------------------------------------------------------------------
# Shared population helpers
# --------------------------------------------------------------------------


def make_contacts() -> ContactsApp:
    """Contacts with exactly one user contact (ARE's judge requires one)."""
    app = ContactsApp()
    app.add_contacts(
        [
            Contact(
                contact_id="contact-sam-taylor",
                first_name=USER_FIRST,
                last_name=USER_LAST,
                is_user=True,
                gender=Gender.OTHER,
                age=34,
                city_living="Paris",
                country="France",
                status=Status.EMPLOYED,
                job="Product manager",
                phone="+33 6 11 22 33 44",
                email=USER_EMAIL,
            ),
            Contact(
                contact_id="contact-maria-garcia",
                first_name="Maria",
                last_name="Garcia",
                gender=Gender.FEMALE,
                age=41,
                city_living="Paris",
                country="France",
                status=Status.EMPLOYED,
                job="Engineering manager",
                phone="+33 6 55 44 33 22",
                email="maria.garcia@example.com",
            ),
            Contact(
                contact_id="contact-leo-martin",
                first_name="Leo",
                last_name="Martin",
                gender=Gender.MALE,
                age=29,
                city_living="Lyon",
                country="France",
                status=Status.EMPLOYED,
                job="Designer",
                phone="+33 6 12 34 56 78",
                email="leo.martin@example.com",
            ),
            Contact(
                contact_id="contact-emma-taylor",
                first_name="Emma",
                last_name="Taylor",
                gender=Gender.FEMALE,
                age=27,
                city_living="London",
                country="United Kingdom",
                status=Status.STUDENT,
                phone="+44 7700 900123",
                email="emma.taylor@example.com",
            ),
        ]
    )
    return app


def make_messaging() -> MessagingAppV2:
    """Messaging app with fixed user ids and one existing chat with Emma."""
    app = MessagingAppV2(current_user_id=USER_MSG_ID, current_user_name="Sam Taylor")
    for user_id, name in [
        ("user-maria-garcia", "Maria Garcia"),
        ("user-leo-martin", "Leo Martin"),
        ("user-emma-taylor", "Emma Taylor"),
    ]:
        app.name_to_id[name] = user_id
        app.id_to_name[user_id] = name
    conv = ConversationV2(
        conversation_id="conv-emma-taylor",
        participant_ids=[USER_MSG_ID, "user-emma-taylor"],
        title="Emma Taylor",
        messages=[
            MessageV2(
                message_id="msg-emma-1",
                sender_id="user-emma-taylor",
                content="Boarding soon! I'll text you when I land.",
                timestamp=START_TIME - 3600,
            )
        ],
        last_updated=START_TIME - 3600,
    )
    # ConversationV2 stores participants via set(); fix the order for stable output.
    conv.participant_ids = sorted(conv.participant_ids)
    app.conversations[conv.conversation_id] = conv
    return app


def make_email() -> EmailClientV2:
    app = EmailClientV2(user_email=USER_EMAIL)
    app.folders[EmailFolderName.INBOX].add_email(
        Email(
            email_id="email-offsite-rsvp",
            sender="maria.garcia@example.com",
            recipients=[USER_EMAIL],
            subject="Team offsite on Friday",
            content=(
                "Hi Sam,\n\nWe are holding the team offsite this Friday, 4 October, "
                "at the Canal Saint-Martin office. Can you let me know whether you "
                "will attend?\n\nThanks,\nMaria"
            ),
            timestamp=START_TIME - 7200,
        )
    )
    app.folders[EmailFolderName.INBOX].add_email(
        Email(
            email_id="email-newsletter",
            sender="news@cityguide.example.com",
            recipients=[USER_EMAIL],
            subject="This week in Paris",
            content="Five exhibitions you should not miss this week.",
            timestamp=START_TIME - 86400,
            is_read=True,
        )
    )
    return app


def make_calendar() -> CalendarApp:
    from are.simulation.apps.calendar import CalendarEvent

    app = CalendarApp()
    ev = CalendarEvent(
        event_id="cal-weekly-sync",
        title="Weekly sync",
        start_datetime=START_TIME + 3600,  # 10:00
        end_datetime=START_TIME + 5400,  # 10:30
        tag="work",
        location="Room 4B",
        attendees=["Sam Taylor", "Maria Garcia"],
    )
    app.events[ev.event_id] = ev
    return app


def make_fs() -> VirtualFileSystem:
    fs = VirtualFileSystem()
    for folder in ["Documents", "Downloads", "Pictures"]:
        fs.mkdir(folder)
    for path in ["Downloads/invoice_october.pdf", "Downloads/holiday_photo.jpg"]:
        with fs.open(path, "w") as f:
            f.write("")
    return fs


def make_shopping() -> ShoppingApp:
    app = ShoppingApp()
    charger = Product(
        name="USB-C charger 65W",
        product_id="prod-usbc-charger",
        variants={
            "item-charger-65w-white": Item(
                item_id="item-charger-65w-white",
                price=29.99,
                options={"colour": "white"},
            ),
            "item-charger-65w-black": Item(
                item_id="item-charger-65w-black",
                price=31.99,
                options={"colour": "black"},
            ),
        },
    )
    cable = Product(
        name="USB-C cable 2m",
        product_id="prod-usbc-cable",
        variants={
            "item-cable-2m": Item(item_id="item-cable-2m", price=9.5, options={}),
        },
    )
    app.products = {p.product_id: p for p in [charger, cable]}
    app.discount_codes = {"item-charger-65w-white": {"SAVE10": 10.0}}
    return app


# --------------------------------------------------------------------------
# Scenario base
# --------------------------------------------------------------------------


class DemoScenario(Scenario):
    """Common settings: fixed start, short duration, 1 s ticks, seed 0."""

    start_time: float | None = START_TIME
    duration: float | None = DURATION
    time_increment_in_seconds: int = 1
    seed: int = 0

    def base_apps(self) -> list:
        return [AgentUserInterface(), SystemApp(), make_contacts()]

    # Helpers used inside build_events_flow (capture mode).
    def user_says(self, event_id: str, content: str, after=None, delay: float = 0):
        aui = self.get_typed_app(AgentUserInterface)
        return (
            aui.send_message_to_agent(content=content)
            .with_type(EventType.USER)
            .with_id(event_id)
            .depends_on(after, delay_seconds=delay)
        )

    def agent_tells_user(self, event_id: str, content: str, after):
        aui = self.get_typed_app(AgentUserInterface)
        return (
            aui.send_message_to_user(content=content)
            .oracle()
            .with_id(event_id)
            .depends_on(after, delay_seconds=ORACLE_DELAY)
        )

    @staticmethod
    def oracle(event: Event, event_id: str, after, delay: float = ORACLE_DELAY):
        return event.oracle().with_id(event_id).depends_on(after, delay_seconds=delay)


# --------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------


class DemoCalendarAddEvent(DemoScenario):
    """Add a dentist appointment (given date, time, place) to the calendar, then confirm."""

    scenario_id: str = "demo_calendar_add_event"

    def init_and_populate_apps(self, *args, **kwargs) -> None:
        self.apps = self.base_apps() + [make_calendar()]

    def build_events_flow(self) -> None:
        cal = self.get_typed_app(CalendarApp)
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                "Please add a calendar event titled 'Dentist appointment' on "
                "2024-10-03 from 14:00:00 to 15:00:00 at 'Smile Dental, 12 Rue "
                "Oberkampf, Paris'. No attendees, no tag, no description.",
            )
            add = self.oracle(
                cal.add_calendar_event(
                    title="Dentist appointment",
                    start_datetime="2024-10-03 14:00:00",
                    end_datetime="2024-10-03 15:00:00",
                    location="Smile Dental, 12 Rue Oberkampf, Paris",
                ),
                "oracle-add-calendar-event",
                task,
            )
            done = self.agent_tells_user(
                "oracle-final-answer",
                "Done: 'Dentist appointment' is in your calendar on 2024-10-03 "
                "from 14:00 to 15:00 at Smile Dental, 12 Rue Oberkampf, Paris.",
                add,
            )
        self.events = [task, add, done]


class DemoEmailReply(DemoScenario):
    """Read Maria's offsite email and reply that Sam will attend, then confirm."""

    scenario_id: str = "demo_email_reply"

    def init_and_populate_apps(self, *args, **kwargs) -> None:
        self.apps = self.base_apps() + [make_email()]

    def build_events_flow(self) -> None:
        mail = self.get_typed_app(EmailClientV2)
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                "Maria emailed me about the team offsite. Reply to that email with "
                "exactly this text: \"Hi Maria, yes, I will attend the offsite on "
                "Friday. Best, Sam\"",
            )
            reply = self.oracle(
                mail.reply_to_email(
                    email_id="email-offsite-rsvp",
                    folder_name="INBOX",
                    content="Hi Maria, yes, I will attend the offsite on Friday. Best, Sam",
                ),
                "oracle-reply-email",
                task,
            )
            done = self.agent_tells_user(
                "oracle-final-answer",
                "I replied to Maria's email 'Team offsite on Friday' to confirm you will attend.",
                reply,
            )
        self.events = [task, reply, done]


class DemoMessagingSend(DemoScenario):
    """Look up Leo Martin's messaging id and send him a given text, then confirm."""

    scenario_id: str = "demo_messaging_send"

    def init_and_populate_apps(self, *args, **kwargs) -> None:
        self.apps = self.base_apps() + [make_messaging()]

    def build_events_flow(self) -> None:
        msg = self.get_typed_app(MessagingAppV2)
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                "Send Leo Martin this message on the messaging app: \"Running 10 "
                "minutes late, start without me.\"",
            )
            send = self.oracle(
                msg.send_message(
                    user_id="user-leo-martin",
                    content="Running 10 minutes late, start without me.",
                ),
                "oracle-send-message",
                task,
            )
            done = self.agent_tells_user(
                "oracle-final-answer",
                "I sent Leo Martin: \"Running 10 minutes late, start without me.\"",
                send,
            )
        self.events = [task, send, done]


class DemoContactsUpdatePhone(DemoScenario):
    """Find Leo Martin's contact, change his phone number, and report his email address."""

    scenario_id: str = "demo_contacts_update_phone"

    def init_and_populate_apps(self, *args, **kwargs) -> None:
        self.apps = self.base_apps()

    def build_events_flow(self) -> None:
        contacts = self.get_typed_app(ContactsApp)
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                "Leo Martin has a new phone number: +33 6 98 76 54 32. Update his "
                "contact (phone field only) and tell me his email address.",
            )
            edit = self.oracle(
                contacts.edit_contact(
                    contact_id="contact-leo-martin",
                    updates={"phone": "+33 6 98 76 54 32"},
                ),
                "oracle-edit-contact",
                task,
            )
            done = self.agent_tells_user(
                "oracle-final-answer",
                "Leo Martin's phone number is now +33 6 98 76 54 32. His email "
                "address is leo.martin@example.com.",
                edit,
            )
        self.events = [task, edit, done]


class DemoFilesOrganize(DemoScenario):
    """Create Documents/Invoices and move the October invoice from Downloads into it."""

    scenario_id: str = "demo_files_organize"

    def init_and_populate_apps(self, *args, **kwargs) -> None:
        self.apps = self.base_apps() + [make_fs()]

    def build_events_flow(self) -> None:
        fs = self.get_typed_app(VirtualFileSystem)
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                "Create the folder Documents/Invoices and move "
                "Downloads/invoice_october.pdf into it (keep the file name).",
            )
            mkdir = self.oracle(
                fs.mkdir(path="Documents/Invoices"), "oracle-mkdir", task
            )
            mv = self.oracle(
                fs.mv(
                    path1="Downloads/invoice_october.pdf",
                    path2="Documents/Invoices/invoice_october.pdf",
                ),
                "oracle-mv",
                mkdir,
            )
            done = self.agent_tells_user(
                "oracle-final-answer",
                "I created Documents/Invoices and moved invoice_october.pdf there.",
                mv,
            )
        self.events = [task, mkdir, mv, done]


class DemoCabOrder(DemoScenario):
    """Order a Premium cab between two given places at a given time, then confirm."""

    scenario_id: str = "demo_cab_order"

    def init_and_populate_apps(self, *args, **kwargs) -> None:
        self.apps = self.base_apps() + [CabApp()]

    def build_events_flow(self) -> None:
        cab = self.get_typed_app(CabApp)
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                "Book me a Premium cab from 'Gare de Lyon, Paris' to 'Orly Airport, "
                "Paris' for 2024-10-01 11:30:00.",
            )
            order = self.oracle(
                cab.order_ride(
                    start_location="Gare de Lyon, Paris",
                    end_location="Orly Airport, Paris",
                    service_type="Premium",
                    ride_time="2024-10-01 11:30:00",
                ),
                "oracle-order-ride",
                task,
            )
            done = self.agent_tells_user(
                "oracle-final-answer",
                "Your Premium cab from Gare de Lyon to Orly Airport is booked for "
                "2024-10-01 11:30.",
                order,
            )
        self.events = [task, order, done]


class DemoShoppingBuy(DemoScenario):
    """Put two white 65W chargers in the cart and check out with code SAVE10."""

    scenario_id: str = "demo_shopping_buy"

    def init_and_populate_apps(self, *args, **kwargs) -> None:
        self.apps = self.base_apps() + [make_shopping()]

    def build_events_flow(self) -> None:
        shop = self.get_typed_app(ShoppingApp)
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                "Buy two of the white 'USB-C charger 65W' and use the discount code "
                "SAVE10 at checkout.",
            )
            add = self.oracle(
                shop.add_to_cart(item_id="item-charger-65w-white", quantity=2),
                "oracle-add-to-cart",
                task,
            )
            checkout = self.oracle(
                shop.checkout(discount_code="SAVE10"), "oracle-checkout", add
            )
            done = self.agent_tells_user(
                "oracle-final-answer",
                "I ordered two white USB-C 65W chargers with code SAVE10; the total "
                "is 53.98.",
                checkout,
            )
        self.events = [task, add, checkout, done]


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
                "you at arrivals!\"",
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
                "17:40 to 18:40 and told her: \"See you at arrivals!\"",
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
            task1 = self.user_says(
                "user-task-turn-1", "What is Maria Garcia's email address?"
            )
            answer1 = self.agent_tells_user(
                "oracle-answer-turn-1",
                "Maria Garcia's email address is maria.garcia@example.com.",
                task1,
            )
            task2 = self.user_says(
                "user-task-turn-2",
                "Thanks. Send her an email at that address with the subject "
                "'Offsite agenda' and the text \"Hi Maria, the offsite agenda will "
                "be ready by Thursday. Sam\"",
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


SCENARIOS: list[type[DemoScenario]] = [
    DemoCalendarAddEvent,
    DemoEmailReply,
    DemoMessagingSend,
    DemoContactsUpdatePhone,
    DemoFilesOrganize,
    DemoCabOrder,
    DemoShoppingBuy,
    DemoEnvMessagePickup,
    DemoMultiTurnEmail,
]


# --------------------------------------------------------------------------
# Export + post-processing
# --------------------------------------------------------------------------


def _fix_arg(arg: dict) -> None:
    """Make one exported action argument readable by ARE's importer."""
    vtype, value = arg.get("value_type"), arg.get("value")
    if vtype == "NoneType":  # quirk 2
        arg["value"], arg["value_type"] = None, None
    elif vtype in ("list", "dict") and isinstance(value, str):  # quirk 1
        try:
            json.loads(value)
        except json.JSONDecodeError:
            arg["value"] = json.dumps(ast.literal_eval(value))


def _sort_tree(node: dict) -> None:
    children = node.get("children")
    if isinstance(children, list):
        children.sort(key=lambda child: child.get("name", ""))
        for child in children:
            _sort_tree(child)


def postprocess(data: dict) -> dict:
    for ev in data.get("events", []):
        for arg in (ev.get("action") or {}).get("args") or []:
            _fix_arg(arg)
    annotation = data.get("metadata", {}).get("annotation")
    if annotation is not None:  # fix 3
        annotation["date"] = 0.0
    for app in data.get("apps", []):  # fix 4
        state = app.get("app_state")
        if isinstance(state, dict) and "files" in state:
            state.pop("tmpdir", None)
            _sort_tree(state["files"])
    return data


def build_and_export(cls: type[DemoScenario]) -> tuple[DemoScenario, dict]:
    scenario = cls()
    scenario.initialize()
    # Stable action ids for ENV/USER events (ARE defaults to uuid4).
    for ev in scenario.events:
        if isinstance(ev, Event) and ev.action is not None:
            ev.action.action_id = f"{ev.action.app_name}.{ev.action.function_name}-{ev.event_id}"
    env = Environment(EnvironmentConfig(oracle_mode=True, start_time=scenario.start_time))
    raw = JsonScenarioExporter().export_to_json(
        env=env, scenario=scenario, scenario_id=scenario.scenario_id
    )
    return scenario, postprocess(json.loads(raw))


def main() -> int:
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else (
        Path(__file__).resolve().parent.parent / "examples" / "scenarios"
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    for cls in SCENARIOS:
        scenario, data = build_and_export(cls)
        path = out_dir / f"{scenario.scenario_id}.json"
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
