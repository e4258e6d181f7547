"""The demo scenarios as ARE Scenario classes: apps with fixed ids, events in capture mode.

Imported by make_demo_scenarios.py, which exports them with ARE's exporter; see its docstring for
how the files are made and why every id is fixed.
"""

from __future__ import annotations

from are.simulation.apps import (
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
from are.simulation.scenarios.scenario import Scenario
from are.simulation.types import Event, EventRegisterer, EventType

from demo_apps import (
    DURATION,
    ORACLE_DELAY,
    START_TIME,
    make_calendar,
    make_contacts,
    make_email,
    make_fs,
    make_messaging,
    make_shopping,
)

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
                'exactly this text: "Hi Maria, yes, I will attend the offsite on '
                'Friday. Best, Sam"',
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
                'Send Leo Martin this message on the messaging app: "Running 10 '
                'minutes late, start without me."',
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
                'I sent Leo Martin: "Running 10 minutes late, start without me."',
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
            mkdir = self.oracle(fs.mkdir(path="Documents/Invoices"), "oracle-mkdir", task)
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
                "Your Premium cab from Gare de Lyon to Orly Airport is booked for 2024-10-01 11:30.",
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
                "Buy two of the white 'USB-C charger 65W' and use the discount code SAVE10 at checkout.",
            )
            add = self.oracle(
                shop.add_to_cart(item_id="item-charger-65w-white", quantity=2),
                "oracle-add-to-cart",
                task,
            )
            checkout = self.oracle(shop.checkout(discount_code="SAVE10"), "oracle-checkout", add)
            done = self.agent_tells_user(
                "oracle-final-answer",
                "I ordered two white USB-C 65W chargers with code SAVE10; the total is 53.98.",
                checkout,
            )
        self.events = [task, add, checkout, done]


# Single-turn scenarios in export order; demo_scenarios_dynamic.py lists the others.
SINGLE_TURN: list[type[DemoScenario]] = [
    DemoCalendarAddEvent,
    DemoEmailReply,
    DemoMessagingSend,
    DemoContactsUpdatePhone,
    DemoFilesOrganize,
    DemoCabOrder,
    DemoShoppingBuy,
]
