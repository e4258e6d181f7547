"""The gaia2-cli command surface as plain data: Meta's command names <-> ARE apps, functions, arguments.

Names and output shapes follow Meta's gaia2-cli (facebookresearch/meta-agents-research-environments,
`gaia2-cli/cli/gaia2_cli/apps/*.py` and `app_registry.py`); the calls underneath are ARE's own tools.

- `APPS`: one entry per Meta CLI binary: the ARE classes it serves and the instance names Meta
  resolves to it (an instance name wins over its class, as in Meta's registry: `Chats` -> `chats`).
- `COMMANDS[class][are_function] = (subcommand, {are_arg: flag}, output)`: only what differs from
  the derived form; every other ARE function of the class is offered as `kebab(function)` with
  `--kebab(arg)` flags and its result printed as JSON (Meta's own rule for most of its commands).
- `output`: None = the ARE result as JSON; "text" = a string result printed as is (`cat`, `tree`);
  a dict = a JSON object template whose string values "$result" / "$arg:<name>" are filled in, and
  whose key "**" merges a dict result into the object.
"""

from __future__ import annotations

from typing import Any

# ---- the binaries (Meta's agent_cli names) --------------------------------------------------------
APPS: list[dict[str, Any]] = [
    {
        "command": "calendar",
        "classes": ["CalendarApp"],
        "instances": ["Calendar"],
        "description": "the user's calendar: events, tags, search",
    },
    {
        "command": "contacts",
        "classes": ["ContactsApp"],
        "instances": ["Contacts"],
        "description": "the user's address book",
    },
    {
        "command": "emails",
        "classes": ["EmailClientV2", "EmailClientApp"],
        "instances": ["Emails", "Mail"],
        "description": "the user's mailbox: read, search, send, reply, forward, move",
    },
    {
        "command": "messages",
        "classes": ["MessagingAppV2"],
        "instances": ["Messages"],
        "description": "a messaging app: conversations with people and groups",
    },
    {
        "command": "chats",
        "classes": [],
        "instances": ["Chats"],
        "description": "a second messaging app: chat conversations",
    },
    {
        "command": "rent-a-flat",
        "classes": ["ApartmentListingApp"],
        "instances": ["RentAFlat"],
        "description": "apartment listings: search, details, saved favourites",
    },
    {
        "command": "shopping",
        "classes": ["ShoppingApp"],
        "instances": ["Shopping"],
        "description": "an online shop: products, cart, discount codes, orders",
    },
    {
        "command": "cabs",
        "classes": ["CabApp"],
        "instances": ["Cabs"],
        "description": "a ride service: quotations, booking, ride status and history",
    },
    {
        "command": "city",
        "classes": ["CityApp"],
        "instances": ["City"],
        "description": "city information (crime rates by zip code)",
    },
    {
        "command": "cloud-drive",
        "classes": ["SandboxLocalFileSystem", "VirtualFileSystem", "CloudDriveApp"],
        "instances": ["Files", "CloudDrive"],
        "description": "the user's cloud storage (a drive separate from your own working directory)",
    },
]

# Apps the agent never gets as a command: the final reply of a turn is the message to the user,
# and the time is the one `date` shows (Meta's gaia2-cli offers neither as a command either).
NOT_COMMANDS = frozenset({"AgentUserInterface", "SystemApp"})

_SUCCESS = "success"
_OK = "ok"


# One app's commands: {are_function: (subcommand, {are_arg: flag}, output)} (see the module docstring).
_Command = tuple[str, dict[str, str], Any]
_Table = dict[str, _Command]


def _wrap(status: str, **fields: Any) -> dict[str, Any]:
    return {"status": status, **fields}


_CALENDAR: _Table = {
    "add_calendar_event": ("add-event", {}, _wrap(_SUCCESS, event_id="$result")),
    "get_calendar_event": ("get-event", {}, None),
    "delete_calendar_event": ("delete-event", {}, _wrap(_SUCCESS, message="$result")),
    "get_calendar_events_from_to": (
        "get-events",
        {"start_datetime": "start-date", "end_datetime": "end-date"},
        None,
    ),
    "read_today_calendar_events": ("today-events", {}, None),
    "get_calendar_events_by_tag": ("get-events-by-tag", {}, None),
}

_CONTACTS: _Table = {
    "add_new_contact": ("add-new-contact", {}, _wrap(_SUCCESS, contact_id="$result")),
    "edit_contact": ("edit-contact", {}, _wrap(_SUCCESS, message="$result")),
    "delete_contact": ("delete-contact", {}, _wrap(_SUCCESS, message="$result")),
}

_EMAILS: _Table = {
    "send_email": ("send-email", {}, _wrap(_OK, email_id="$result")),
    "forward_email": ("forward-email", {}, _wrap(_OK, email_id="$result")),
    "download_attachments": ("download-attachments", {}, _wrap(_OK, downloaded="$result")),
    "reply_to_email": ("reply-to-email", {}, _wrap(_OK, email_id="$result")),
    "move_email": ("move-email", {}, _wrap(_OK, email_id="$result")),
    "delete_email": ("delete-email", {}, _wrap(_OK, email_id="$result")),
}

_APARTMENTS: _Table = {
    "list_all_apartments": ("list-all-apartments", {}, _wrap(_SUCCESS, data="$result")),
    "get_apartment_details": ("get-apartment-details", {}, _wrap(_SUCCESS, data="$result")),
    "save_apartment": ("save-apartment", {}, _wrap(_SUCCESS, message="Successfully saved apartment")),
    "remove_saved_apartment": (
        "remove-saved-apartment",
        {},
        _wrap(_SUCCESS, message="Successfully removed apartment from favorites"),
    ),
    "list_saved_apartments": ("list-saved-apartments", {}, _wrap(_SUCCESS, data="$result")),
    "search_apartments": ("search-apartments", {}, _wrap(_SUCCESS, data="$result")),
}

_SHOPPING: _Table = {
    "list_all_products": ("list-all-products", {}, {"status": _SUCCESS, "**": "$result"}),
    "get_product_details": ("get-product-details", {}, _wrap(_SUCCESS, product="$result")),
    "search_product": ("search-products", {}, _wrap(_SUCCESS, products="$result")),
    "add_to_cart": ("add-to-cart", {}, _wrap(_SUCCESS, item_id="$result", quantity="$arg:quantity")),
    "remove_from_cart": ("remove-from-cart", {}, _wrap(_SUCCESS, item_id="$result")),
    "list_cart": ("list-cart", {}, _wrap(_SUCCESS, cart="$result")),
    "checkout": ("checkout", {}, _wrap(_SUCCESS, order_id="$result")),
    "get_discount_code_info": (
        "get-discount-code-info",
        {},
        _wrap(_SUCCESS, discount_code="$arg:discount_code", info="$result"),
    ),
    "get_all_discount_codes": ("get-all-discount-codes", {}, _wrap(_SUCCESS, discount_codes="$result")),
    "list_orders": ("list-orders", {}, _wrap(_SUCCESS, orders="$result")),
    "get_order_details": ("get-order-details", {}, _wrap(_SUCCESS, order="$result")),
    "cancel_order": ("cancel-order", {}, _wrap(_SUCCESS, order_id="$result")),
}

_CABS: _Table = {
    name: (name.replace("_", "-"), {}, _wrap(_SUCCESS, data="$result"))
    for name in (
        "get_quotation",
        "list_rides",
        "order_ride",
        "get_current_ride_status",
        "get_ride",
        "get_ride_history",
        "get_ride_history_length",
    )
}
_CABS["user_cancel_ride"] = ("user-cancel-ride", {}, _wrap(_SUCCESS, message="$result"))

_CITY: _Table = {
    name: (name.replace("_", "-"), {}, _wrap(_SUCCESS, data="$result"))
    for name in ("get_crime_rate", "get_api_call_count", "get_api_call_limit")
}

# Meta's cloud-drive: `--path` for every path, `mv --source --destination`.
_FILES_COMMON: _Table = {
    "cat": ("cat", {}, "text"),
    "ls": ("ls", {}, None),
    "exists": ("exists", {}, None),
    "info": ("info", {}, None),
    "tree": ("tree", {}, "text"),
    "mv": (
        "mv",
        {"path1": "source", "path2": "destination"},
        _wrap(_SUCCESS, source="$arg:path1", destination="$arg:path2"),
    ),
    "rm": ("rm", {}, _wrap(_SUCCESS, path="$arg:path")),
}
_SANDBOX_FS: _Table = {
    **_FILES_COMMON,
    "mkdir": ("mkdir", {}, _wrap(_SUCCESS, path="$arg:path")),
    "makedirs": ("makedirs", {}, _wrap(_SUCCESS, path="$arg:path")),
}
_VIRTUAL_FS: _Table = {
    **_FILES_COMMON,
    "mkdir": ("mkdir", {"create_recursive": "create-parents"}, _wrap(_SUCCESS, path="$arg:path")),
    "rmdir": ("rmdir", {}, _wrap(_SUCCESS, path="$arg:path")),
}

COMMANDS: dict[str, _Table] = {
    "CalendarApp": _CALENDAR,
    "ContactsApp": _CONTACTS,
    "EmailClientV2": _EMAILS,
    "EmailClientApp": _EMAILS,
    "MessagingAppV2": {},  # Meta's messages/chats subcommands are ARE's names in kebab case
    "ApartmentListingApp": _APARTMENTS,
    "ShoppingApp": _SHOPPING,
    "CabApp": _CABS,
    "CityApp": _CITY,
    "SandboxLocalFileSystem": _SANDBOX_FS,
    "VirtualFileSystem": _VIRTUAL_FS,
}
