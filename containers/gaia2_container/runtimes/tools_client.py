"""Minimal client of the daemon's tool API for every runtime, stdlib only so the app CLIs start fast."""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from gaia2_contract import constants as contract
from gaia2_contract import routes

from .. import budget, places


class ToolApiError(Exception):
    pass


def request(
    method: str, path: str, body: Any = None, base_url: str | None = None, timeout: float | None = 60.0
) -> Any:
    url = (base_url or places.TOOLS_URL).rstrip("/") + path
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as exc:
        try:
            detail = json.loads(exc.read()).get("error", "")
        except Exception:  # noqa: BLE001 - best effort detail
            detail = ""
        raise ToolApiError(f"{method} {path}: HTTP {exc.code} {detail}".strip()) from None
    except (urllib.error.URLError, OSError) as exc:
        raise ToolApiError(f"{method} {path}: daemon unreachable at {url}: {exc}") from None


def list_tools(base_url: str | None = None) -> list[dict[str, Any]]:
    return request("GET", routes.TOOLS, base_url=base_url)["tools"]


def call_tool(
    tool: str, args: dict[str, Any], base_url: str | None = None, ends_turn: bool = False
) -> dict[str, Any]:
    """One tool call; it may last as long as the scenario (without a limit: as long as it takes): an
    `expert_agent` tool (Agent2Agent) answers once its sub-agent is done. `ends_turn`: a final
    message ends the agent's turn even if it raises (routes.CALL_ENDS_TURN)."""
    body: dict[str, Any] = {"tool": tool, "args": args}
    if ends_turn:
        body[routes.CALL_ENDS_TURN] = True
    return request("POST", routes.CALL, body, base_url=base_url, timeout=budget.scenario_timeout())


def wait_for_tools(limit_s: float = 120.0) -> list[dict[str, Any]]:
    """The tool list, once the daemon serves it (a runtime may start before the scenario loads)."""
    deadline = time.monotonic() + limit_s
    while True:
        try:
            return list_tools()
        except ToolApiError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def scenario_over() -> bool:
    """Whether the daemon says the scenario is over (an unreachable daemon: it is)."""
    try:
        return bool(request("GET", routes.inbox_after(999999), timeout=2.0)["done"])
    except ToolApiError:
        return True


def give_up(code: int, message: str, who: str) -> int:
    """Say why a runtime stops, on its log and in $HOME/agent_error.txt (which the daemon adds to
    the run's error as a note); returns `code` for the exit."""
    print(f"{who}: {message}", file=sys.stderr, flush=True)
    try:
        (Path(os.environ.get("HOME", ".")) / contract.AGENT_ERROR_FILE).write_text(
            message + "\n", encoding="utf-8"
        )
    except OSError:
        pass
    return code
