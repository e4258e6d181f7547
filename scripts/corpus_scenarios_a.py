"""Corpus scenarios, execution and search: one user turn, writes that depend on what was read or
written before, an answer built from facts found in the universe."""

from __future__ import annotations

from are.simulation.types import CapabilityTag, EventRegisterer

import corpus_plants as P
from corpus_base import CorpusScenario


class ExecutionGroupChat(CorpusScenario):
    """Create a group conversation, then post in it: the post's conversation_id is the id the
    creation returned (an ARE placeholder, resolved from the agent's own call when judged)."""

    universe = 7
    capability = CapabilityTag.Execution
    hint = "Look up both user ids, create the group, then send the message to the new conversation."

    def build_events_flow(self) -> None:
        msg = self.app("Messages")
        text = "Meeting point: Pont Marie at 8:00 on Saturday. Bring a change of clothes!"
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                "Create a group conversation on Messages titled 'Kayak trip' with "
                f'{P.HUGO.name} and {P.YANN.name}, then post this in it: "{text}"',
            )
            group = self.oracle(
                msg.create_group_conversation(user_ids=[P.HUGO.user_id, P.YANN.user_id], title="Kayak trip"),
                "oracle-create-group",
                task,
            )
            post = self.oracle(
                msg.send_message_to_group_conversation(
                    conversation_id="{{oracle-create-group}}", content=text
                ),
                "oracle-post-in-group",
                group,
            )
            done = self.agent_tells_user(
                "oracle-final-answer",
                f"I created the 'Kayak trip' group with {P.HUGO.name} "
                f"and {P.YANN.name} and posted the meeting point in it.",
                post,
            )
        self.finish([task, group, post, done])


class ExecutionEmailToCalendar(CorpusScenario):
    """Read Marc's email (date, time, place), put the meeting in the calendar, then reply to it."""

    universe = 7
    capability = CapabilityTag.Execution
    hint = "Search the inbox for Marc Olivier's email; the event's details come from its text."

    def build_events_flow(self) -> None:
        cal, mail = self.app("Calendar"), self.app("Emails")
        start, end, place = P.MARC_MEETING
        reply = "Confirmed, it is in my calendar. See you on Thursday! Ines"
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                f"{P.MARC.name} emailed me about a supplier visit. Add it to my calendar "
                f"titled 'Supplier visit with {P.MARC.name}', with the date, time and place from his "
                f'email and Marc as the attendee. Then reply to his email: "{reply}"',
            )
            add = self.oracle(
                cal.add_calendar_event(
                    title=f"Supplier visit with {P.MARC.name}",
                    start_datetime=start,
                    end_datetime=end,
                    location=place,
                    attendees=[P.MARC.name],
                ),
                "oracle-add-calendar-event",
                task,
            )
            answer = self.oracle(
                mail.reply_to_email(email_id=P.MARC_EMAIL_ID, folder_name="INBOX", content=reply),
                "oracle-reply-to-marc",
                add,
            )
            done = self.agent_tells_user(
                "oracle-final-answer",
                "I added 'Supplier visit with Marc Olivier' on "
                "Thursday 24 October, 14:00-15:30 at the Verdant Foods warehouse, 18 Quai "
                "Rambaud, Lyon, and replied to Marc to confirm.",
                answer,
            )
        self.finish([task, add, answer, done])


class ExecutionShoppingCheckout(CorpusScenario):
    """Pick the cheapest in-stock size-42 variant among the product's variants, then check out with
    the discount code: checkout acts on the cart the first write filled."""

    universe = 22
    capability = CapabilityTag.Execution
    hint = "Compare the product's variants: size 42, available, lowest price."
    duration: float | None = None  # annotated: ARE scenarios are dataclasses (AutoDataclass)

    def build_events_flow(self) -> None:
        shop = self.app("Shopping")
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                f"Buy one pair of the '{P.SHOES_NAME}' in size 42, the cheapest colour "
                f"that is in stock, and use my discount code {P.SHOES_CODE} at checkout.",
            )
            add = self.oracle(shop.add_to_cart(item_id=P.SHOES_ITEM, quantity=1), "oracle-add-to-cart", task)
            pay = self.oracle(shop.checkout(discount_code=P.SHOES_CODE), "oracle-checkout", add)
            done = self.agent_tells_user(
                "oracle-final-answer",
                f"I ordered the orange {P.SHOES_NAME} in size 42 "
                f"(118.50 before the 15% {P.SHOES_CODE} discount, 100.73 after).",
                pay,
            )
        self.finish([task, add, pay, done])


class SearchCheapestFlat(CorpusScenario):
    """Find the cheapest 2-bedroom flat in Lyon among ~600 listings, save it, give name and price."""

    universe = 7
    capability = CapabilityTag.Search
    hint = "List the RentAFlat listings in Lyon with 2 bedrooms and compare prices."

    def build_events_flow(self) -> None:
        flats = self.app("RentAFlat")
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                "Which 2-bedroom flat in Lyon is the cheapest on RentAFlat? Save it to "
                "my favourites and tell me its name and monthly price.",
            )
            save = self.oracle(flats.save_apartment(apartment_id=P.FLAT_ID), "oracle-save-flat", task)
            done = self.agent_tells_user(
                "oracle-final-answer",
                f"The cheapest 2-bedroom flat in Lyon is "
                f"'{P.FLAT_NAME}' at {P.FLAT_PRICE:.0f} per month. I saved it to your "
                "favourites.",
                save,
            )
        self.finish([task, save, done])


class SearchExpensesFile(CorpusScenario):
    """The answer is in a CSV file's bytes (Files): an agent must read them; the oracle only sends
    the total (to Nora on Chats, and to the user)."""

    universe = 22
    capability = CapabilityTag.Search
    hint = f"Read {P.EXPENSES_PATH} and add up the travel rows dated September 2024."
    reads_file_bytes = True

    def build_events_flow(self) -> None:
        chats = self.app("Chats")
        text = f"Hi Nora, my travel expenses for September 2024 total {P.SEPTEMBER_TRAVEL_TOTAL} EUR."
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                "How much did I spend on travel in September 2024? It's in my travel "
                f"expenses file in Documents/Finance. Send the total to {P.NORA.name} on Chats and "
                "tell me too.",
            )
            send = self.oracle(
                chats.send_message(user_id=P.NORA.user_id, content=text), "oracle-send-total", task
            )
            done = self.agent_tells_user(
                "oracle-final-answer",
                "Your travel expenses for September 2024 total "
                f"{P.SEPTEMBER_TRAVEL_TOTAL} EUR; I sent the total to {P.NORA.name}.",
                send,
            )
        self.finish([task, send, done])


SCENARIOS_A = [
    ExecutionGroupChat,
    ExecutionEmailToCalendar,
    ExecutionShoppingCheckout,
    SearchCheapestFlat,
    SearchExpensesFile,
]
