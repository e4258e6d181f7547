"""The gaia2-cli command surface (containers/gaia2_container/runtimes/gaia2_cli), without a container.

tests/data/gaia2_cli_tools.json is the real `GET /tools` answer of a scenario holding every app class
(instances named as real Gaia2 rows and as the demo scenarios name them; regenerate with
tests/data/make_gaia2_cli_tools.py). The names checked here are Meta's gaia2-cli names.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from gaia2_container.runtimes.gaia2_cli.cli import build_group, parse, render_output  # noqa: E402
from gaia2_container.runtimes.gaia2_cli.instructions import render_instructions  # noqa: E402
from gaia2_container.runtimes.gaia2_cli.surface import build_surface, kebab  # noqa: E402

TOOLS = json.loads((Path(__file__).resolve().parents[1] / "data" / "gaia2_cli_tools.json").read_text())

# Meta's agent-visible subcommands per command (gaia2-cli/cli/gaia2_cli/apps/*.py, hidden ones left out).
META = {
    "calendar": {
        "add-event",
        "get-event",
        "delete-event",
        "get-events",
        "today-events",
        "get-all-tags",
        "get-events-by-tag",
        "search-events",
    },
    "contacts": {
        "get-contacts",
        "get-contact",
        "get-current-user-details",
        "add-new-contact",
        "edit-contact",
        "delete-contact",
        "search-contacts",
    },
    "emails": {
        "list-emails",
        "get-email-by-id",
        "get-email-by-index",
        "send-email",
        "forward-email",
        "download-attachments",
        "reply-to-email",
        "move-email",
        "delete-email",
        "search-emails",
    },
    "messages": {
        "get-user-id",
        "get-user-name-from-id",
        "lookup-user-id",
        "send-message",
        "send-message-to-group-conversation",
        "create-group-conversation",
        "get-existing-conversation-ids",
        "list-recent-conversations",
        "list-conversations-by-participant",
        "download-attachment",
        "read-conversation",
        "add-participant-to-conversation",
        "remove-participant-from-conversation",
        "change-conversation-title",
        "search",
        "regex-search",
    },
    "rent-a-flat": {
        "list-all-apartments",
        "get-apartment-details",
        "save-apartment",
        "remove-saved-apartment",
        "list-saved-apartments",
        "search-apartments",
    },
    "shopping": {
        "list-all-products",
        "get-product-details",
        "search-products",
        "add-to-cart",
        "remove-from-cart",
        "list-cart",
        "checkout",
        "get-discount-code-info",
        "get-all-discount-codes",
        "list-orders",
        "get-order-details",
        "cancel-order",
    },
    "cabs": {
        "get-quotation",
        "list-rides",
        "order-ride",
        "user-cancel-ride",
        "get-current-ride-status",
        "get-ride",
        "get-ride-history",
        "get-ride-history-length",
    },
    "city": {"get-crime-rate", "get-api-call-count", "get-api-call-limit"},
    "cloud-drive": {"cat", "ls", "exists", "info", "tree", "mkdir", "makedirs", "mv", "rm"},
}
META["chats"] = META["messages"]


def _only(*apps: str) -> list[dict]:
    return [t for t in TOOLS if t["app"] in apps]


@pytest.fixture(scope="module")
def surface():
    return build_surface(TOOLS)


def test_commands_are_metas_names_per_instance(surface):
    names = {name: (c.app, c.app_class) for name, c in surface.items()}
    assert names["calendar"] == ("Calendar", "CalendarApp")
    assert names["messages"] == ("Messages", "MessagingAppV2") and names["chats"] == (
        "Chats",
        "MessagingAppV2",
    )
    assert names["emails"] == ("Emails", "EmailClientV2")
    assert names["rent-a-flat"][0] == "RentAFlat" and names["cloud-drive"][0] == "Files"
    # The demo's class-like `ContactsApp` instance is Meta's `contacts`; a second ContactsApp gets its own name.
    assert names["contacts"] == ("ContactsApp", "ContactsApp")
    assert names["internal-contacts"] == ("InternalContacts", "ContactsApp")
    assert names["virtual-file-system"][1] == "VirtualFileSystem"
    assert "agent-user-interface" not in surface and "system-app" not in surface
    assert not any(c.app in ("AgentUserInterface", "SystemApp") for c in surface.values())


@pytest.mark.parametrize("command", sorted(META))
def test_subcommands_match_metas(surface, command):
    subs = set(surface[command].subcommands)
    assert META[command] <= subs, META[command] - subs
    if command == "cloud-drive":  # SandboxLocalFileSystem also has open/display/read_document (derived names)
        assert subs - META[command] == {"open", "display", "read-document"}
    else:
        assert subs == META[command]


def test_demo_class_names_get_metas_commands():
    demo = [dict(t, app=t["app_class"]) for t in TOOLS if t["app"] in ("Calendar", "Emails", "Shopping")]
    cab = [t for t in TOOLS if t["app"] == "CabApp"]
    assert set(build_surface(demo + cab)) == {"calendar", "emails", "shopping", "cabs"}


def test_only_the_scenarios_apps_are_commands():
    assert set(build_surface(_only("AgentUserInterface", "SystemApp", "ContactsApp", "CabApp"))) == {
        "contacts",
        "cabs",
    }


SOLUTIONS = [
    (
        "calendar",
        [
            "add-event",
            "--title",
            "Dentist appointment",
            "--start-datetime",
            "2024-10-03 14:00:00",
            "--end-datetime",
            "2024-10-03 15:00:00",
            "--location",
            "Smile Dental",
        ],
        "Calendar__add_calendar_event",
        {
            "title": "Dentist appointment",
            "start_datetime": "2024-10-03 14:00:00",
            "end_datetime": "2024-10-03 15:00:00",
            "location": "Smile Dental",
        },
    ),
    (
        "calendar",
        [
            "get-events",
            "--start-date",
            "2024-10-01 00:00:00",
            "--end-date",
            "2024-10-02 00:00:00",
            "--limit",
            "3",
        ],
        "Calendar__get_calendar_events_from_to",
        {"start_datetime": "2024-10-01 00:00:00", "end_datetime": "2024-10-02 00:00:00", "limit": 3},
    ),
    (
        "calendar",
        ["add-event", "--title", "x", "--attendees", '["Ana Lopez", "Leo Martin"]'],
        "Calendar__add_calendar_event",
        {"title": "x", "attendees": ["Ana Lopez", "Leo Martin"]},
    ),
    (
        "contacts",
        ["edit-contact", "--contact-id", "c1", "--updates", '{"phone": "+33 6"}'],
        "ContactsApp__edit_contact",
        {"contact_id": "c1", "updates": {"phone": "+33 6"}},
    ),
    (
        "emails",
        ["send-email", "--recipients", '["maria@example.com"]', "--subject", "Hi", "--content", "Yo"],
        "Emails__send_email",
        {"recipients": ["maria@example.com"], "subject": "Hi", "content": "Yo"},
    ),
    (
        "emails",
        ["reply-to-email", "--email-id", "e1", "--content", "Yes"],
        "Emails__reply_to_email",
        {"email_id": "e1", "content": "Yes"},
    ),
    (
        "messages",
        ["send-message", "--user-id", "u1", "--content", "late"],
        "Messages__send_message",
        {"user_id": "u1", "content": "late"},
    ),
    (
        "chats",
        ["send-message", "--user-id", "u2", "--content", "hi"],
        "Chats__send_message",
        {"user_id": "u2", "content": "hi"},
    ),
    (
        "cabs",
        [
            "order-ride",
            "--start-location",
            "A",
            "--end-location",
            "B",
            "--service-type",
            "Premium",
            "--ride-time",
            "2024-10-01 11:30:00",
        ],
        "CabApp__order_ride",
        {
            "start_location": "A",
            "end_location": "B",
            "service_type": "Premium",
            "ride_time": "2024-10-01 11:30:00",
        },
    ),
    (
        "shopping",
        ["add-to-cart", "--item-id", "i1", "--quantity", "2"],
        "Shopping__add_to_cart",
        {"item_id": "i1", "quantity": 2},
    ),
    (
        "shopping",
        ["checkout", "--discount-code", "SAVE10"],
        "Shopping__checkout",
        {"discount_code": "SAVE10"},
    ),
    (
        "shopping",
        ["search-products", "--product-name", "charger"],
        "Shopping__search_product",
        {"product_name": "charger"},
    ),
    (
        "rent-a-flat",
        ["search-apartments", "--min-price", "900", "--saved-only"],
        "RentAFlat__search_apartments",
        {"min_price": 900.0, "saved_only": True},
    ),
    (
        "cloud-drive",
        ["mv", "--source", "a.txt", "--destination", "b/a.txt"],
        "Files__mv",
        {"path1": "a.txt", "path2": "b/a.txt"},
    ),
    (
        "virtual-file-system",
        ["mkdir", "--path", "Documents/Invoices", "--create-parents"],
        "VirtualFileSystem__mkdir",
        {"path": "Documents/Invoices", "create_recursive": True},
    ),
]


@pytest.mark.parametrize(
    ("command", "argv", "tool", "args"), SOLUTIONS, ids=[" ".join(s[1][:1]) for s in SOLUTIONS]
)
def test_flags_become_are_arguments(surface, command, argv, tool, args):
    sub, parsed = parse(surface[command], argv)
    assert (sub.tool, parsed) == (tool, args)


def test_usage_errors_are_clicks(surface):
    runner = CliRunner()
    group = build_group(surface["calendar"], action=lambda sub, args: pytest.fail("must not call"))
    missing = runner.invoke(
        group, ["get-events", "--start-date", "2024-10-01 00:00:00"], prog_name="calendar"
    )
    assert missing.exit_code == 2 and "Missing option '--end-date'" in missing.output
    unknown = runner.invoke(group, ["add_calendar_event"], prog_name="calendar")
    assert unknown.exit_code == 2 and "No such command 'add_calendar_event'" in unknown.output
    bad = runner.invoke(
        build_group(surface["emails"], action=lambda *_: None),
        ["send-email", "--recipients", "[oops"],
        prog_name="emails",
    )
    assert bad.exit_code == 2 and "Invalid value for '--recipients'" in bad.output
    with pytest.raises(click.UsageError):
        parse(surface["cabs"], ["order-ride", "--start-location", "A"])


def test_help_lists_subcommands_and_are_descriptions(surface):
    runner = CliRunner()
    group = build_group(surface["calendar"])
    top = runner.invoke(group, ["--help"], prog_name="calendar")
    assert top.exit_code == 0 and top.output.startswith("Usage: calendar [OPTIONS] COMMAND [ARGS]...")
    assert "add-event" in top.output and "get-events" in top.output
    sub = runner.invoke(group, ["add-event", "--help"], prog_name="calendar")
    assert sub.exit_code == 0 and "Usage: calendar add-event [OPTIONS]" in sub.output
    desc = next(t for t in TOOLS if t["name"] == "Calendar__add_calendar_event")["description"]
    assert desc.split("\n")[0].strip()[:40] in " ".join(sub.output.split())
    for flag in (
        "--title",
        "--start-datetime",
        "--end-datetime",
        "--tag",
        "--description",
        "--location",
        "--attendees",
    ):
        assert flag in sub.output


def test_output_shapes_follow_meta(surface):
    def out(command, argv, result):
        sub, args = parse(surface[command], argv)
        return render_output(sub, args, result)

    assert json.loads(out("calendar", ["add-event", "--title", "x"], "ev1")) == {
        "status": "success",
        "event_id": "ev1",
    }
    assert json.loads(out("emails", ["send-email", "--recipients", '["a@b.c"]'], "m1")) == {
        "status": "ok",
        "email_id": "m1",
    }
    assert json.loads(out("cabs", ["get-ride", "--idx", "0"], {"ride_id": "r"})) == {
        "status": "success",
        "data": {"ride_id": "r"},
    }
    assert json.loads(out("shopping", ["add-to-cart", "--item-id", "i1"], "i1")) == {
        "status": "success",
        "item_id": "i1",
        "quantity": 1,
    }
    assert json.loads(out("shopping", ["list-all-products"], {"products": {}, "total": 0})) == {
        "status": "success",
        "products": {},
        "total": 0,
    }
    assert json.loads(out("cloud-drive", ["mv", "--source", "a", "--destination", "b"], None)) == {
        "status": "success",
        "source": "a",
        "destination": "b",
    }
    assert out("cloud-drive", ["cat", "--path", "a.txt"], "hello\n") == "hello\n"
    # Reads Meta prints as they are: ARE's result, indented JSON.
    assert out("contacts", ["get-contact", "--contact-id", "c"], {"first_name": "Ana"}) == (
        '{\n  "first_name": "Ana"\n}\n'
    )


def test_noise_renamed_tools_show_their_public_names():
    chats = [
        dict(t, name="Chats__post_chat_message", function="post_chat_message", description="Posts.")
        if t["name"] == "Chats__send_message"
        else t
        for t in _only("Chats")
    ]
    command = build_surface(chats)["chats"]
    assert "post-chat-message" in command.subcommands and "send-message" not in command.subcommands
    sub, args = parse(command, ["post-chat-message", "--user-id", "u1", "--content", "hi"])
    assert (sub.tool, args) == ("Chats__post_chat_message", {"user_id": "u1", "content": "hi"})


def test_kebab():
    assert [kebab(n) for n in ("InternalContacts", "add_calendar_event", "RentAFlat", "EmailClientV2")] == [
        "internal-contacts",
        "add-calendar-event",
        "rent-a-flat",
        "email-client-v2",
    ]


def test_instructions_follow_the_rules_and_list_only_this_scenarios_commands():
    text = render_instructions(
        _only("AgentUserInterface", "SystemApp", "ContactsApp", "CabApp"),
        sim_time=1727773200.0,
        exec_tool="Bash",
        home="/gaia2/agent",
    )
    assert "- `cabs` —" in text and "- `contacts` —" in text
    assert "`calendar`" not in text and "`emails` —" not in text
    assert "Tuesday 2024-10-01 09:00:00" in text
    for rule in (
        "Work silently",
        "final answer of a turn is your message to the user",
        "Do not poll",
        "in the user's name",
        "`Bash`",
        "/gaia2/agent",
        "--help",
    ):
        assert rule in text, rule
    assert "current date and time" not in render_instructions(_only("CabApp"))  # no date without a sim_time


def test_the_launchers_find_the_cli_from_anywhere(tmp_path: Path):
    """A launcher names the source root itself (harnesses scrub PYTHONPATH); moving the module that
    writes it once pointed the root one folder too low and every CLI call failed in the container."""
    import os
    import subprocess
    import sys

    from gaia2_container.daemon.session.app_commands import GAIA2_CLI_MODULE, install_app_commands
    from gaia2_container.daemon.session.toolbox import ToolSpec

    spec = ToolSpec(
        name="Calendar__add_calendar_event",
        app="Calendar",
        function="add_calendar_event",
        description="Add an event.",
        write=True,
        args=[],
        are_function="add_calendar_event",
        app_class="CalendarApp",
    )
    (launcher,) = install_app_commands([spec], tmp_path / "bin")
    assert launcher.name == "calendar"
    root = launcher.read_text().split("PYTHONPATH=", 1)[1].split(" ", 1)[0]
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    probe = subprocess.run(
        [sys.executable, "-c", f"import {GAIA2_CLI_MODULE}.cli"],
        env={**clean, "PYTHONPATH": root},
        cwd="/",
        capture_output=True,
        text=True,
    )
    assert probe.returncode == 0, probe.stderr
