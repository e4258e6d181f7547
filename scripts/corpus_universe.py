"""A Gaia2-sized universe built with ARE's own app classes: thousands of records, same bytes every run.

Every random choice comes from `random.Random("universe-<n>-<part>")` (string seeds are hashed
with SHA-512 by `random`, so they do not depend on PYTHONHASHSEED) and every record has a fixed id.
The planted records of corpus_plants.py are added among the random ones. This module builds the
people, contacts, emails, messages and calendar; corpus_universe_more.py the rest.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from are.simulation.apps import CalendarApp, ContactsApp, EmailClientV2, MessagingAppV2
from are.simulation.apps.calendar import CalendarEvent
from are.simulation.apps.contacts import Contact, Gender, Status
from are.simulation.apps.email_client import Email, EmailFolderName
from are.simulation.apps.messaging_v2 import ConversationV2, MessageV2

import corpus_plants as P
import corpus_words as W

N_PEOPLE = 700
N_INTERNAL = 160
N_EMAILS = {"INBOX": 850, "SENT": 260, "DRAFT": 40, "TRASH": 40}
N_CONVERSATIONS = {"Messages": 130, "Chats": 80}
N_CALENDAR = 800


def rng_for(n: int, part: str) -> random.Random:
    return random.Random(f"universe-{n}-{part}")


def hexid(rng: random.Random) -> str:
    return f"{rng.getrandbits(128):032x}"


@dataclass(frozen=True)
class Universe:
    """The random people of universe `n` (the planted ones are added by each builder)."""

    n: int
    people: tuple[P.Person, ...]


def make_people(n: int) -> Universe:
    rng = rng_for(n, "people")
    seen = {(p.first, p.last) for p in [P.USER, *P.PLANTED_PEOPLE]}
    people = []
    while len(people) < N_PEOPLE:
        female = rng.random() < 0.5
        first = rng.choice(W.FIRST_NAMES_F if female else W.FIRST_NAMES_M)
        last = rng.choice(W.LAST_NAMES)
        if (first, last) in seen:
            continue
        seen.add((first, last))
        city, country = rng.choice(W.CITIES)
        key = f"{first}-{last}".lower().replace(" ", "-")
        domain = rng.choice(["example.com", "mail.example.org", "inbox.example.net"])
        people.append(
            P.Person(
                key,
                first,
                last,
                "FEMALE" if female else "MALE",
                rng.randint(19, 78),
                city,
                country,
                rng.choice(W.JOBS),
                f"+33 6 {rng.randint(10, 99)} {rng.randint(10, 99)} {rng.randint(10, 99)} "
                f"{rng.randint(10, 99)}",
                f"{key.replace('-', '.')}@{domain}",
            )
        )
    return Universe(n, tuple(people))


def _contact(person: P.Person, rng: random.Random | None, is_user: bool = False) -> Contact:
    return Contact(
        contact_id=person.contact_id,
        first_name=person.first,
        last_name=person.last,
        is_user=is_user,
        gender=Gender[person.gender],
        age=person.age,
        nationality="French" if person.country == "France" else None,
        city_living=person.city,
        country=person.country,
        status=Status.EMPLOYED if person.age < 65 else Status.RETIRED,
        job=person.job,
        description=rng.choice(W.DESCRIPTIONS) if rng else None,
        phone=person.phone,
        email=person.email,
        address=P.HOME if is_user else None,
    )


def make_contacts(u: Universe, name: str) -> ContactsApp:
    """`Contacts` holds everyone (the user is the one is_user contact); `InternalContacts` a subset."""
    rng = rng_for(u.n, name)
    app = ContactsApp(name=name)
    people = list(u.people) if name == "Contacts" else list(u.people[:N_INTERNAL])
    contacts = [_contact(P.USER, None, is_user=True)]
    contacts += [_contact(p, rng) for p in [*P.PLANTED_PEOPLE, *people]]
    app.add_contacts(contacts)
    return app


def make_emails(u: Universe) -> EmailClientV2:
    rng = rng_for(u.n, "emails")
    app = EmailClientV2(name="Emails", user_email=P.USER.email)
    for folder, count in N_EMAILS.items():
        for i in range(count):
            other = rng.choice(u.people)
            subject, body = rng.choice(W.EMAIL_TOPICS)
            number = f"INV-{u.n:02d}{i:04d}"
            outgoing = folder in ("SENT", "DRAFT")
            greet, sign = (other.first, P.USER.first) if outgoing else (P.USER.first, other.first)
            email = Email(
                email_id=hexid(rng),
                sender=P.USER.email if outgoing else other.email,
                recipients=[other.email] if outgoing else [P.USER.email],
                subject=subject.format(n=number),
                content=f"Hi {greet},\n\n{body.format(n=number)}\n\nBest,\n{sign}",
                timestamp=P.START_TIME - rng.randint(3600, 200 * P.DAY),
                is_read=rng.random() < 0.8,
            )
            app.folders[EmailFolderName[folder]].add_email(email)
    app.folders[EmailFolderName.INBOX].add_email(
        Email(
            email_id=P.MARC_EMAIL_ID,
            sender=P.MARC.email,
            recipients=[P.USER.email],
            subject=P.MARC_EMAIL_SUBJECT,
            content=P.MARC_EMAIL_BODY,
            timestamp=P.START_TIME - 5400,
            is_read=False,
        )
    )
    for folder in app.folders.values():  # newest first, as the app lists them
        folder.emails.sort(key=lambda e: (-e.timestamp, e.email_id))
    return app


def _conversation(conv_id: str, other: P.Person, rng: random.Random, count: int) -> ConversationV2:
    when = P.START_TIME - rng.randint(2 * 3600, 90 * P.DAY)
    messages = []
    for _ in range(count):
        when += rng.randint(60, 3 * P.DAY // 2)
        sender = rng.choice([P.USER.user_id, other.user_id])
        messages.append(
            MessageV2(
                sender_id=sender,
                message_id=hexid(rng),
                timestamp=min(when, P.START_TIME - 60),
                content=rng.choice(W.MESSAGE_LINES),
            )
        )
    messages.sort(key=lambda m: (-m.timestamp, m.message_id))
    conv = ConversationV2(
        participant_ids=[P.USER.user_id, other.user_id],
        messages=messages,
        title=other.name,
        conversation_id=conv_id,
        last_updated=messages[0].timestamp,
    )
    conv.participant_ids = sorted(conv.participant_ids)  # set() order is not stable across runs
    return conv


def make_messaging(u: Universe, name: str) -> MessagingAppV2:
    """`Messages` and `Chats`: two MessagingAppV2 instances with different conversations."""
    rng = rng_for(u.n, name)
    app = MessagingAppV2(name=name, current_user_id=P.USER.user_id, current_user_name=P.USER.name)
    for person in [*P.PLANTED_PEOPLE, *u.people]:
        app.name_to_id[person.name] = person.user_id
        app.id_to_name[person.user_id] = person.name
    planted = {"Messages": [(P.HUGO_CONV_ID, P.HUGO)], "Chats": [(P.NORA_CHAT_ID, P.NORA)]}[name]
    partners = rng.sample(u.people, N_CONVERSATIONS[name])
    convs = [_conversation(cid, person, rng, rng.randint(4, 8)) for cid, person in planted]
    convs += [
        _conversation(f"conv-{name.lower()}-{i:04d}", p, rng, rng.randint(5, 15))
        for i, p in enumerate(partners)
    ]
    for conv in convs:
        app.conversations[conv.conversation_id] = conv
    return app


def make_calendar(u: Universe) -> CalendarApp:
    rng = rng_for(u.n, "calendar")
    app = CalendarApp(name="Calendar")
    events = []
    reserved = {P.ts(f"{day} 00:00:00") // P.DAY for day in P.RESERVED_DAYS}
    while len(events) < N_CALENDAR:
        day = (P.START_TIME // P.DAY) + rng.randint(-120, 90)
        if day in reserved:
            continue
        start = day * P.DAY + rng.randint(14, 40) * 1800  # 07:00 .. 20:00
        title = rng.choice(W.CALENDAR_TITLES)
        attendees = [P.USER.name] + [p.name for p in rng.sample(u.people, rng.randint(0, 3))]
        events.append(
            CalendarEvent(
                event_id=hexid(rng),
                title=title,
                start_datetime=float(start),
                end_datetime=float(start + rng.choice([1800, 3600, 5400])),
                tag=rng.choice(W.CALENDAR_TAGS),
                description=f"{title} ({rng.choice(W.COMPANIES)})",
                location=rng.choice(W.LOCATIONS),
                attendees=attendees,
            )
        )
    title, start, end, location = P.CLASH
    events.append(
        CalendarEvent(
            event_id=P.CLASH_EVENT_ID,
            title=title,
            start_datetime=P.ts(start),
            end_datetime=P.ts(end),
            tag="work",
            description="Q3 numbers and Q4 plan",
            location=location,
            attendees=[P.USER.name, "Sofia Marchal"],
        )
    )
    for event in sorted(events, key=lambda e: (e.start_datetime, e.event_id)):
        app.events[event.event_id] = event
    return app
