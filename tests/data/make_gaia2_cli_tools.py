"""Write tests/data/gaia2_cli_tools.json: the daemon's real `GET /tools` for a scenario with every app class.

Run once after an ARE upgrade, with the images built (`python tests/data/make_gaia2_cli_tools.py`):
a demo scenario plus one empty instance of each other class, named as real Gaia2 rows name them
(`Calendar`, `Emails`, `Messages` + `Chats`, `InternalContacts`, `RentAFlat`, `Files`, ...) and as
class-like names (`ContactsApp`, `CabApp`, `VirtualFileSystem`, ...), as the demo scenarios do.
"""

from __future__ import annotations

import json
import shlex
import tempfile
from pathlib import Path

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE

HERE = Path(__file__).parent
EXTRA = [
    ("Calendar", "CalendarApp"),
    ("Emails", "EmailClientV2"),
    ("Messages", "MessagingAppV2"),
    ("Chats", "MessagingAppV2"),
    ("InternalContacts", "ContactsApp"),
    ("RentAFlat", "ApartmentListingApp"),
    ("Shopping", "ShoppingApp"),
    ("City", "CityApp"),
    ("Files", "SandboxLocalFileSystem"),
    ("VirtualFileSystem", "VirtualFileSystem"),
]  # EmailClientApp, MessagingApp: not in ARE's ALL_APPS
# A fresh instance's get_state() (ARE 1.2.0): load_state({}) fails for these classes.
EMPTY = {
    "CalendarApp": {"events": {}},
    "ContactsApp": {"contacts": {}, "view_limit": 10},
    "EmailClientV2": {
        "user_email": "user@meta.com",
        "view_limit": 5,
        "folders": {
            "INBOX": {"folder_name": "INBOX", "emails": []},
            "SENT": {"folder_name": "SENT", "emails": []},
            "DRAFT": {"folder_name": "DRAFT", "emails": []},
            "TRASH": {"folder_name": "TRASH", "emails": []},
        },
    },
    "EmailClientApp": {
        "user_email": "user@meta.com",
        "view_limit": 5,
        "folders": {
            "INBOX": {"folder_name": "INBOX", "emails": []},
            "SENT": {"folder_name": "SENT", "emails": []},
            "DRAFT": {"folder_name": "DRAFT", "emails": []},
            "TRASH": {"folder_name": "TRASH", "emails": []},
        },
    },
    "MessagingAppV2": {
        "conversations": {},
        "messages_view_limit": 10,
        "conversation_view_limit": 5,
        "mode": "NAME",
        "name_to_id": {},
        "id_to_name": {},
        "current_user_id": None,
        "current_user_name": None,
    },
    "MessagingApp": {"conversations": {}, "messages_view_limit": 10, "conversation_view_limit": 5},
    "ApartmentListingApp": {"apartments": {}, "saved_apartments": []},
    "ShoppingApp": {"products": {}, "cart": {}, "discount_codes": {}, "orders": {}},
    "CityApp": {"api_call_limit": 100, "crime_data": {}},
}
DUMP = (
    "import json, os, urllib.request; t = json.load(urllib.request.urlopen(os.environ['GAIA2_TOOLS_URL'] + '/tools'));"
    " print('TOOLS ' + json.dumps(t['tools']))"
)


def main() -> None:
    scenario = json.loads((HERE.parents[1] / "examples" / "scenarios" / "demo_cab_order.json").read_text())
    scenario["metadata"]["definition"]["scenario_id"] = "all_apps_probe"
    scenario["apps"] += [
        {"name": name, "class_name": cls, "app_state": EMPTY.get(cls, {})} for name, cls in EXTRA
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "all_apps_probe.json"
        path.write_text(json.dumps(scenario))
        result = run_scenario(
            path,
            ORACLE_IMAGE,
            Path(tmp) / "out",
            extra_env={"GAIA2_AGENT_COMMAND": f"/opt/gaia2/venv/bin/python3 -c {shlex.quote(DUMP)}"},
        )
        log = (Path(tmp) / "out" / result.scenario_id / "agent.log").read_text()
    line = next(x for x in log.splitlines() if x.startswith("TOOLS "))
    tools = [{k: v for k, v in t.items() if k != "parameters"} for t in json.loads(line[6:])]
    (HERE / "gaia2_cli_tools.json").write_text(json.dumps(tools, indent=1) + "\n")
    print(f"{len(tools)} tools of {len({t['app'] for t in tools})} apps")


if __name__ == "__main__":
    main()
