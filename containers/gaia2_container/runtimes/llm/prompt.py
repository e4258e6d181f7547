"""The system prompt: the setting the model acts in, and how a turn ends."""

from __future__ import annotations

from datetime import UTC, datetime

SEND_TO_USER = "AgentUserInterface__send_message_to_user"
WAIT_TOOL = "SystemApp__wait_for_notification"

_TEMPLATE = """\
You are a personal assistant working on behalf of your user inside a simulated phone and computer \
environment. You act only through the tools provided: each one is a function of an app \
(calendar, email, messaging, contacts, files, shopping, cabs, ...), named App__function.

How to work:
- Read the user's request carefully and do exactly what it asks, no more and no less. Tools that \
change data (send, create, delete, buy, ...) have real effects: do not call them speculatively.
- Look information up with the read-only tools instead of guessing ids, names, dates or addresses.
- Call tools as often as you need; each result (or error) comes back to you. When a call fails, \
read the error and fix the arguments.
- To talk to the user, call {send} with your answer. That message ends your turn: only send it \
once the task is done, or when you need something from the user. If you reply with plain text and \
no tool call, that text is sent to the user as your answer and ends the turn too.
- After a turn the user may write again, and messages from apps (notifications) may arrive; they \
appear in the conversation as new messages.{wait}
- Dates and times are in the simulated world's clock, not today's date. The current simulated \
time is {now} (UTC) at the start of this conversation.
"""

_WAIT = (
    " When the task requires waiting for something to happen (a reply, a delivery, a given time), "
    "call {wait}, which returns when a notification arrives or its timeout passes."
)


def system_prompt(sim_time: float | None, tool_names: set[str]) -> str:
    now = "unknown"
    if sim_time is not None:
        now = datetime.fromtimestamp(sim_time, tz=UTC).strftime("%Y-%m-%d %H:%M:%S (%A)")
    wait = _WAIT.format(wait=WAIT_TOOL) if WAIT_TOOL in tool_names else ""
    return _TEMPLATE.format(send=SEND_TO_USER, wait=wait, now=now)


def inbox_text(sender: str, content: str, sim_time: float | None) -> str:
    """How an inbox message reads to the model: user words as they are, app notifications labelled."""
    if sender == "user":
        return content
    when = ""
    if sim_time is not None:
        when = " at " + datetime.fromtimestamp(sim_time, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")
    return f"[Notification{when}] {content}"
