"""Apps of the demo scenarios, populated with fixed ids so every export is byte-identical."""

from __future__ import annotations

from datetime import UTC, datetime

from are.simulation.apps import (
    CalendarApp,
    ContactsApp,
    EmailClientV2,
    MessagingAppV2,
    ShoppingApp,
    VirtualFileSystem,
)
from are.simulation.apps.contacts import Contact, Gender, Status
from are.simulation.apps.email_client import Email, EmailFolderName
from are.simulation.apps.messaging_v2 import ConversationV2, MessageV2
from are.simulation.apps.shopping import Item, Product

# 2024-10-01 09:00:00 UTC
START_TIME = datetime(2024, 10, 1, 9, 0, 0, tzinfo=UTC).timestamp()
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
