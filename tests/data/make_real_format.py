"""Write the small real-format test scenarios (run once: `python tests/data/make_real_format.py`).

They have what real Gaia2 rows have and the demo scenarios lack (docs: gaia2-real-format facts):
app instance names that differ from class names (two MessagingAppV2 instances `Messages` and
`Chats`, two ContactsApp instances `Contacts` and `InternalContacts`, SandboxLocalFileSystem as
`Files` with `real_path`s into a gaia2_filesystem copy), `duration: null`, hints, tags and the
augmentation data ARE's noise mode reads (`tool_names_mapping`, `tool_descriptions_mapping`, `apps`).
The event and app-state layout is ARE 1.2.0's export format, as in examples/scenarios/.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
START = 1727773200.0  # 2024-10-01 09:00 UTC
USER = ("user-sam-taylor", "Sam Taylor")
PEOPLE = {"user-leo-martin": "Leo Martin", "user-maria-garcia": "Maria Garcia"}


def arg(name, value, value_type="str"):
    return {"name": name, "value": value, "value_type": value_type if value is not None else None}


def contact(cid, first, last, is_user, email, phone):
    return {
        "first_name": first,
        "last_name": last,
        "contact_id": cid,
        "is_user": is_user,
        "gender": "Other",
        "age": 30,
        "nationality": None,
        "city_living": "Paris",
        "country": "France",
        "status": "Employed",
        "job": None,
        "description": None,
        "phone": phone,
        "email": email,
        "address": None,
    }


def contacts_app(name, entries):
    return {
        "name": name,
        "class_name": "ContactsApp",
        "app_state": {"contacts": {c["contact_id"]: c for c in entries}, "view_limit": 10},
    }


def conversation(conv_id, other, messages):
    return {
        "participant_ids": [other, USER[0]],
        "messages": messages,
        "title": PEOPLE[other],
        "conversation_id": conv_id,
        "last_updated": START - 3600,
    }


def message(sender, mid, content, ts=START - 3600):
    return {"sender_id": sender, "message_id": mid, "timestamp": ts, "content": content}


def messaging_app(name, conversations):
    everyone = {USER[0]: USER[1], **PEOPLE}
    return {
        "name": name,
        "class_name": "MessagingAppV2",
        "app_state": {
            "conversations": {c["conversation_id"]: c for c in conversations},
            "messages_view_limit": 10,
            "conversation_view_limit": 5,
            "mode": "NAME",
            "name_to_id": {v: k for k, v in everyone.items()},
            "id_to_name": everyone,
            "current_user_id": USER[0],
            "current_user_name": USER[1],
        },
    }


def event(cls, etype, eid, deps, rel, app, function, args, action_id=""):
    doc = {
        "class_name": cls,
        "event_type": etype,
        "event_time": None,
        "event_id": eid,
        "dependencies": deps,
        "event_relative_time": rel,
        "action": {
            "action_id": action_id,
            "app": app,
            "function": function,
            "operation_type": "WRITE" if cls == "Event" else None,
            "args": args,
        },
    }
    if cls == "OracleEvent":
        doc["event_time_comparator"] = None
    return doc


def user_task(text):
    return event(
        "Event",
        "USER",
        "user-task",
        [],
        0.0,
        "AgentUserInterface",
        "send_message_to_agent",
        [
            arg("content", text),
            arg("attachments", None),
            arg("base64_utf8_encoded_attachment_contents", None),
        ],
        "AgentUserInterface.send_message_to_agent-user-task",
    )


def answer(deps, text):
    return event(
        "OracleEvent",
        "AGENT",
        "oracle-final-answer",
        deps,
        1.0,
        "AgentUserInterface",
        "send_message_to_user",
        [arg("content", text)],
    )


def document(scenario_id, apps, events, tags, hints, augmentation):
    return {
        "metadata": {
            "definition": {
                "scenario_id": scenario_id,
                "seed": 0,
                "duration": None,
                "time_increment_in_seconds": 1,
                "start_time": START,
                "run_number": None,
                "hints": hints,
                "config": None,
                "has_a2a_augmentation": False,
                "has_tool_augmentation": False,
                "has_env_events_augmentation": False,
                "has_exception": False,
                "exception_type": None,
                "exception_message": None,
                "tags": tags,
                "hf_metadata": None,
            }
        },
        "apps": apps,
        "events": events,
        "completed_events": [],
        "world_logs": [],
        "version": "are_simulation_v1",
        "context": None,
        "augmentation": augmentation,
    }


def base_apps():
    sam = contact("contact-sam", "Sam", "Taylor", True, "sam.taylor@example.com", "+33 6 11 22 33 44")
    leo = contact("contact-leo", "Leo", "Martin", False, "leo.martin@example.com", "+33 6 12 34 56 78")
    maria = contact(
        "contact-maria", "Maria", "Garcia", False, "maria.garcia@example.com", "+33 6 55 44 33 22"
    )
    desk = contact("contact-desk", "Help", "Desk", False, "helpdesk@example.com", "+33 1 00 00 00 00")
    return [
        {"name": "AgentUserInterface", "class_name": "AgentUserInterface", "app_state": {"messages": []}},
        contacts_app("Contacts", [sam, leo, maria]),
        contacts_app("InternalContacts", [desk]),
    ]


def two_messengers() -> dict:
    leo_conv = conversation(
        "conv-leo", "user-leo-martin", [message("user-leo-martin", "m-leo-0", "On my way soon.")]
    )
    maria_conv = conversation(
        "conv-maria", "user-maria-garcia", [message("user-maria-garcia", "m-maria-0", "See you at the flat.")]
    )
    apps = [*base_apps(), messaging_app("Messages", [maria_conv]), messaging_app("Chats", [leo_conv])]
    events = [
        user_task(
            "Leo will ask me for the door code on Chats. When he does, answer him there: "
            '"The door code is 4521." Then tell Maria on Messages: "Leo is on his way."'
        ),
        event(
            "Event",
            "ENV",
            "env-leo-asks",
            ["user-task"],
            3.0,
            "Chats",
            "create_and_add_message",
            [
                arg("conversation_id", "conv-leo"),
                arg("sender_id", "user-leo-martin"),
                arg("content", "Hey Sam, what's the door code?"),
            ],
            "MessagingAppV2.create_and_add_message-env-leo-asks",
        ),
        event(
            "OracleEvent",
            "AGENT",
            "oracle-reply-leo",
            ["env-leo-asks"],
            1.0,
            "Chats",
            "send_message",
            [
                arg("user_id", "user-leo-martin"),
                arg("content", "The door code is 4521."),
                arg("attachment_path", None),
            ],
        ),
        event(
            "OracleEvent",
            "AGENT",
            "oracle-tell-maria",
            ["oracle-reply-leo"],
            1.0,
            "Messages",
            "send_message",
            [
                arg("user_id", "user-maria-garcia"),
                arg("content", "Leo is on his way."),
                arg("attachment_path", None),
            ],
        ),
        answer(
            ["oracle-tell-maria"],
            "I gave Leo the door code on Chats and told Maria on Messages that he is on his way.",
        ),
    ]
    hints = [
        {
            "hint_type": "TASK_HINT",
            "content": "Wait for Leo's message on Chats, reply there, then use Messages.",
            "associated_event_id": "user-task",
        }
    ]
    renamed = {
        "Chats__send_message": "Chats__post_chat_message",
        "Messages__send_message": "Messages__deliver_text",
        "Chats__list_recent_conversations": "Chats__recent_threads",
    }
    described = {
        "Chats__send_message": "Posts a chat message to one person (noise-mode description).",
        "Messages__send_message": "Delivers a text message to one person (noise-mode description).",
    }
    noise_apps = [
        {
            "name": "Chats",
            "app_state": {
                "conversations": {
                    "conv-leo": conversation(
                        "conv-leo",
                        "user-leo-martin",
                        [
                            message("user-leo-martin", "n-leo-1", "Traffic is bad today."),
                            message("user-leo-martin", "n-leo-2", "Did you see the game?"),
                        ],
                    )
                }
            },
        },
        {
            "name": "Messages",
            "app_state": {
                "conversations": {
                    "conv-maria": conversation(
                        "conv-maria",
                        "user-maria-garcia",
                        [
                            message("user-maria-garcia", "n-maria-1", "Bought bread."),
                            message("user-maria-garcia", "n-maria-2", "Call me later."),
                        ],
                    )
                }
            },
        },
    ]
    augmentation = {"apps": noise_apps, "tool_names_mapping": renamed, "tool_descriptions_mapping": described}
    return document(
        "real_format_two_messengers", apps, events, ["Universe", "Execution"], hints, augmentation
    )


def files_app(real_paths: dict[str, str]) -> dict:
    """A Files tree like real rows: the root carries a temp-dir name ARE ignores."""
    notes = {
        "name": "notes",
        "type": "directory",
        "children": [{"name": "meeting.txt", "type": "file", "real_path": real_paths["meeting"]}],
    }
    documents = {
        "name": "Documents",
        "type": "directory",
        "children": [notes, {"name": "report.txt", "type": "file", "real_path": real_paths["report"]}],
    }
    return {
        "name": "Files",
        "class_name": "SandboxLocalFileSystem",
        "app_state": {"files": {"name": "tmppom6e92_", "type": "directory", "children": [documents]}},
    }


def files_scenario(scenario_id: str, real_paths: dict[str, str]) -> dict:
    apps = [*base_apps(), files_app(real_paths)]
    events = [
        user_task("Which room is the project sync in? It is in my notes, Documents/notes/meeting.txt."),
        event(
            "OracleEvent",
            "AGENT",
            "oracle-read-notes",
            ["user-task"],
            1.0,
            "Files",
            "cat",
            [arg("path", "/Documents/notes/meeting.txt")],
        ),
        answer(["oracle-read-notes"], "The project sync is in room B-12 (second floor), Thursday at 10:00."),
    ]
    return document(scenario_id, apps, events, ["Universe", "Search"], [], None)


def main() -> None:
    good = {
        "meeting": "demo_filesystem/Documents/notes/meeting.txt",
        "report": "demo_filesystem/Documents/report.txt",
    }
    docs = {
        "real_format_two_messengers.json": two_messengers(),
        "real_format_files.json": files_scenario("real_format_files", good),
        "real_format_files_escape.json": files_scenario(
            "real_format_files_escape", {**good, "report": "demo_filesystem/../../../etc/passwd"}
        ),
    }
    for name, doc in docs.items():
        (HERE / name).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
