"""Corpus scenarios, adaptability, time and ambiguity: environment events that react to the agent
(they fire only once ARE's judge accepted the agent's turn, and may use what the agent's call
returned), actions due later in simulated time, and asking the user as the right move."""

from __future__ import annotations

from are.simulation.types import CapabilityTag, EventRegisterer

import corpus_plants as P
from corpus_base import CorpusScenario

STATION = "Gare de Lyon, Paris"


class AdaptabilityCabCancelled(CorpusScenario):
    """Turn 1: book a cab. The driver cancels (ENV, after the turn was accepted). Turn 2: rebook as
    the user asked up front, and say so."""

    universe = 7
    capability = CapabilityTag.Adaptability
    hint = "Book the Default ride; when the cancellation notification arrives, book a Premium one."

    def build_events_flow(self) -> None:
        cabs = self.app("Cabs")
        when = "2024-10-15 08:30:00"
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                f"Book me a Default cab from home ({P.HOME}) to {STATION} for {when}. "
                "If the driver cancels, book a Premium cab for the same trip and time instead and "
                "tell me.",
            )
            first = self.oracle(
                cabs.order_ride(
                    start_location=P.HOME, end_location=STATION, service_type="Default", ride_time=when
                ),
                "oracle-order-default",
                task,
            )
            told = self.agent_tells_user(
                "oracle-answer-turn-1", f"Your Default cab to {STATION} is booked for 08:30.", first
            )
            cancel = self.env(
                cabs.cancel_ride(
                    who_cancel="driver",
                    message="Your driver had to cancel the ride. Sorry for the inconvenience.",
                ),
                "env-driver-cancels",
                told,
                delay=3,
            )
            again = self.oracle(
                cabs.order_ride(
                    start_location=P.HOME, end_location=STATION, service_type="Premium", ride_time=when
                ),
                "oracle-order-premium",
                cancel,
            )
            done = self.agent_tells_user(
                "oracle-answer-turn-2",
                "The driver cancelled your Default ride, so I booked "
                f"a Premium cab from home to {STATION} for 08:30 instead.",
                again,
            )
        self.finish([task, first, told, cancel, again, done])


class AdaptabilityForwardReply(CorpusScenario):
    """Turn 1: email Clara. Her reply (ENV) answers the agent's own email: its email_id argument is
    a placeholder for what the agent's send_email returned. Turn 2: forward that reply to Hugo."""

    universe = 22
    capability = CapabilityTag.Adaptability
    hint = "Send the email; when Clara's reply arrives, forward it from the INBOX to Hugo."

    def build_events_flow(self) -> None:
        mail = self.app("Emails")
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                f"Email {P.CLARA.name} ({P.CLARA.email}) with the subject 'Venue for "
                "Friday' to ask whether the venue for Friday's launch party is confirmed. When she "
                f"replies, forward her reply to {P.HUGO.name} ({P.HUGO.email}).",
            )
            send = self.oracle(
                mail.send_email(
                    recipients=[P.CLARA.email],
                    subject="Venue for Friday",
                    content="Hi Clara, is the venue for Friday's launch party confirmed? Thanks, Ines",
                ),
                "oracle-email-clara",
                task,
            )
            told = self.agent_tells_user(
                "oracle-answer-turn-1",
                "I emailed Clara; I will forward her reply to Hugo when it arrives.",
                send,
            )
            reply = self.env(
                mail.reply_to_email_from_user(
                    sender=P.CLARA.email,
                    email_id="{{oracle-email-clara}}",
                    content=(
                        "Hi Ines, yes: the venue is confirmed, Le Perchoir, 14 Rue Crespin du Gast, "
                        "from 19:00. Clara"
                    ),
                ),
                "env-clara-replies",
                told,
                delay=4,
            )
            forward = self.oracle(
                mail.forward_email(
                    email_id="{{env-clara-replies}}", recipients=[P.HUGO.email], folder_name="INBOX"
                ),
                "oracle-forward-to-hugo",
                reply,
            )
            done = self.agent_tells_user(
                "oracle-answer-turn-2",
                "Clara confirmed the venue (Le Perchoir, from 19:00) and I forwarded her reply to Hugo.",
                forward,
            )
        self.finish([task, send, told, reply, forward, done])


class TimeDelayedMessage(CorpusScenario):
    """ "In 5 minutes, send ...": the oracle's message is due 300 s after the task, and ARE's judge
    checks when the agent sent it (10 s early to 25 s late). The delay stays inside the 420 s that
    ARE's benchmark gives a Time scenario (MAX_TIME_SCENARIO_DURATION): a later action would never be
    due, and a run without it would pass."""

    universe = 7
    capability = CapabilityTag.Time
    hint = "Wait five minutes (SystemApp wait), then send the message."

    def build_events_flow(self) -> None:
        msg = self.app("Messages")
        text = "Leaving the office now, see you at the climbing gym at 19:00."
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task", f'In 5 minutes, send {P.HUGO.name} this message on Messages: "{text}"'
            )
            send = self.oracle(
                msg.send_message(user_id=P.HUGO.user_id, content=text), "oracle-send-later", task, delay=300
            )
            done = self.agent_tells_user("oracle-final-answer", f"Sent your message to {P.HUGO.name}.", send)
        self.finish([task, send, done])


class TimeEmailThenMessage(CorpusScenario):
    """Two actions five simulated minutes apart: an email now, a message 300 s after it."""

    universe = 22
    capability = CapabilityTag.Time
    hint = "Send the email, wait five minutes, then send the message."
    duration: float | None = None  # annotated: ARE scenarios are dataclasses (AutoDataclass)

    def build_events_flow(self) -> None:
        mail, msg = self.app("Emails"), self.app("Messages")
        email_text = "The rehearsal starts at 10:00, please be on time."
        text = "Clara has the rehearsal details, ask her if anything is unclear."
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                f"Email {P.CLARA.name} now with the subject 'Rehearsal' saying \""
                f'{email_text}", and 5 minutes later send {P.YANN.name} on Messages: "{text}"',
            )
            email = self.oracle(
                mail.send_email(recipients=[P.CLARA.email], subject="Rehearsal", content=email_text),
                "oracle-email-now",
                task,
            )
            later = self.oracle(
                msg.send_message(user_id=P.YANN.user_id, content=text),
                "oracle-message-later",
                email,
                delay=300,
            )
            done = self.agent_tells_user(
                "oracle-final-answer",
                f"I emailed {P.CLARA.name} and, five minutes later, messaged {P.YANN.name}.",
                later,
            )
        self.finish([task, email, later, done])


class AmbiguityWhichAirport(CorpusScenario):
    """'The airport' is ambiguous in Paris: the oracle asks (turn 1 ends with the question), the
    user's answer is the next turn's message, then the ride is booked."""

    universe = 7
    capability = CapabilityTag.Ambiguity
    hint = "Paris has two airports: ask the user which one before booking."

    def build_events_flow(self) -> None:
        cabs = self.app("Cabs")
        when = "2024-10-16 06:00:00"
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task", f"Book me a Default cab from home to the airport for tomorrow, {when}."
            )
            ask = self.agent_tells_user(
                "oracle-ask-airport",
                "Paris has two airports: should the cab take you to "
                "Charles de Gaulle Airport or to Orly Airport?",
                task,
            )
            answer = self.user_says("user-answer", "Orly Airport, please.", after=ask, delay=3)
            order = self.oracle(
                cabs.order_ride(
                    start_location=P.HOME,
                    end_location="Orly Airport, Paris",
                    service_type="Default",
                    ride_time=when,
                ),
                "oracle-order-ride",
                answer,
            )
            done = self.agent_tells_user(
                "oracle-answer-turn-2",
                "Your Default cab from home to Orly Airport is booked for tomorrow at 06:00.",
                order,
            )
        self.finish([task, ask, answer, order, done])


class AmbiguityCalendarClash(CorpusScenario):
    """The requested slot clashes with an existing meeting: asking before adding is right; the
    user moves the appointment, then it is added at the new time."""

    universe = 22
    capability = CapabilityTag.Ambiguity
    hint = "Check the calendar on 2024-10-22 before adding; ask the user about the clash."

    def build_events_flow(self) -> None:
        cal = self.app("Calendar")
        title, _start, _end, room = P.CLASH
        place = "Cabinet Dentaire Voltaire, 40 Boulevard Voltaire, Paris"
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                f"Add 'Dentist appointment' to my calendar on 2024-10-22 from 09:00 to 10:00 at {place}.",
            )
            ask = self.agent_tells_user(
                "oracle-ask-clash",
                f"You already have '{title}' on 2024-10-22 from 09:00 to "
                f"10:30 in {room}. Should I still add the dentist appointment at 09:00, or "
                "move it to another time?",
                task,
            )
            answer = self.user_says(
                "user-answer", "Oh right. Put the dentist from 11:00 to 12:00 instead.", after=ask, delay=3
            )
            add = self.oracle(
                cal.add_calendar_event(
                    title="Dentist appointment",
                    start_datetime="2024-10-22 11:00:00",
                    end_datetime="2024-10-22 12:00:00",
                    location=place,
                ),
                "oracle-add-dentist",
                answer,
            )
            done = self.agent_tells_user(
                "oracle-answer-turn-2", "Added 'Dentist appointment' on 2024-10-22 from 11:00 to 12:00.", add
            )
        self.finish([task, ask, answer, add, done])


SCENARIOS_B = [
    AdaptabilityCabCancelled,
    AdaptabilityForwardReply,
    TimeDelayedMessage,
    TimeEmailThenMessage,
    AmbiguityWhichAirport,
    AmbiguityCalendarClash,
]
