"""Stand-ins for what ARE's default agent takes from ARE's Environment and Scenario, which live in the
daemon: each is an ARE type (AppTool, MessageQueue) or has the one method the agent calls, and each
reaches the daemon only through its tool API.

- tools: ARE `AppTool`s built from `GET /tools` (original and public names, descriptions, argument
  types and defaults, return type), whose function is a `POST /call`. ARE's agent wraps them in its
  own `AppToolAdapter`, as it wraps the real ones, so the prompt's tool list is ARE's. A call
  returns `str()` of what the app returned (`text`), which is what ARE's agent observes, and
  raises the app's own exception text, which ARE's executor then wraps as it would. The final
  message is sent as ending the turn whatever its outcome: ARE's termination step ends the turn on
  the call (its ToolCallLog, logged before the tool runs), raised or not, and the daemon must
  judge then, as ARE's runner does (docs/reference/are-default-agent.md, "How a turn ends").
- notifications: ARE's `MessageQueue`, filled from `GET /inbox` before every read; the inbox
  saying the scenario is over puts ARE's ENVIRONMENT_STOP message, which stops the agent as the
  Environment's own would.
- time: `GET /time`, the scenario's simulated clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from are.simulation.notification_system import Message, MessageQueue, MessageType
from are.simulation.tool_utils import AppTool, AppToolArg

from gaia2_contract import routes

from ..harness.driver import SEND_TO_USER
from ..tools_client import call_tool, request

# Inbox senders (daemon/session/core.py) -> the message types ARE's notification system gives its agent.
MESSAGE_TYPES = {"user": MessageType.USER_MESSAGE, "system": MessageType.ENVIRONMENT_NOTIFICATION}
STOP_TEXT = "the scenario is over"
_EPOCH = datetime.fromtimestamp(0, tz=UTC)  # a stop message is due at once


class DaemonClock:
    """The one TimeManager method ARE's agent calls: `time()`, the simulated time now."""

    def time(self) -> float:
        return float(request("GET", routes.TIME)["sim_time"])


class InboxQueue(MessageQueue):
    """ARE's message queue (same ordering and extraction), topped up from the daemon's inbox."""

    def __init__(self) -> None:
        super().__init__()
        self.next_index = 0
        self.stopped = False

    def pull(self) -> None:
        if self.stopped:
            return
        page = request("GET", routes.inbox_after(self.next_index - 1))
        for item in page["messages"]:
            kind = MESSAGE_TYPES.get(item.get("sender"))
            stamp = item.get("timestamp", item.get("sim_time"))
            if kind is None or not isinstance(stamp, (int, float)):
                continue
            self.put(
                Message(
                    message_type=kind,
                    message=str(item.get("content", "")),
                    timestamp=datetime.fromtimestamp(float(stamp), tz=UTC),
                )
            )
        self.next_index = max(self.next_index, int(page.get("next", self.next_index)))
        if page.get("done"):
            self.stopped = True
            self.put(Message(message_type=MessageType.ENVIRONMENT_STOP, message=STOP_TEXT, timestamp=_EPOCH))

    def get_by_timestamp(self, timestamp: datetime) -> list[Message]:
        self.pull()
        return super().get_by_timestamp(timestamp)

    def has_environment_stop_message(self) -> bool:
        self.pull()
        return super().has_environment_stop_message()


class AppCallError(Exception):
    """The app's exception, by its own text: ARE's executor shows the model `str(exception)`."""


def app_tool(spec: dict[str, Any], app: Any) -> AppTool:
    """An ARE AppTool for one `GET /tools` entry whose function calls the daemon."""
    public = spec["name"]
    function = spec.get("are_function") or spec["function"]
    names = [arg["name"] for arg in spec["args"]]
    ends_turn = SEND_TO_USER in (public, f"{spec['app']}__{function}")

    def call(_app: Any, *args: Any, **kwargs: Any) -> str:
        if len(args) > len(names):
            raise TypeError(
                f"{function}() takes {len(names)} positional arguments but {len(args)} were given"
            )
        outcome = call_tool(public, {**dict(zip(names, args)), **kwargs}, ends_turn=ends_turn)
        if not outcome.get("ok"):
            raise AppCallError(outcome.get("message", outcome.get("error")))
        return str(outcome.get("text", outcome.get("result")))

    call.__name__ = function
    description = spec.get("are_description")
    return AppTool(
        class_name=spec.get("app_class") or "",
        app_name=spec["app"],
        name=f"{spec['app']}__{function}",  # the original name; `_public_name` is what the agent sees
        function_description=description,
        args=[
            AppToolArg(
                name=arg["name"],
                arg_type=arg["type"],
                description=arg.get("description"),
                has_default=bool(arg.get("has_default")),
                default=arg.get("default"),
            )
            for arg in spec["args"]
        ],
        return_type=spec.get("return_type"),
        function=call,
        class_instance=app,
        write_operation=spec.get("write"),
        _public_name=public,
        _public_description=description if description is not None else spec.get("description"),
    )


@dataclass
class ScenarioStandIn:
    """What ARE's agent reads from a Scenario. `nb_turns` stays None: the agent runs until the
    scenario is over (ENVIRONMENT_STOP), which the daemon decides after the last turn."""

    tools: list[AppTool]
    apps: list[Any]
    start_time: float | None
    nb_turns: int | None = None
    additional_system_prompt: str | None = None

    def get_tools(self) -> list[AppTool]:
        return list(self.tools)

    @classmethod
    def from_specs(cls, specs: list[dict[str, Any]], start_time: float | None) -> ScenarioStandIn:
        """Apps in the order their tools come (the Environment's order), one stand-in per app
        instance: `name` for the notification prompt, `wait_for_user_response` for the AUI."""
        apps: dict[str, Any] = {}
        for spec in specs:
            apps.setdefault(spec["app"], SimpleNamespace(name=spec["app"], wait_for_user_response=False))
        return cls([app_tool(spec, apps[spec["app"]]) for spec in specs], list(apps.values()), start_time)


def environment_standin(log_callback: Callable[[Any], None]) -> SimpleNamespace:
    """What ARE's AgentBuilder takes from an Environment. Pausing the clock is not offered to the
    agent's process (it could hold back the scenario's events): the daemon's model relay holds it
    during each model call instead, as for every agent (docs/reference/are-default-agent.md)."""
    return SimpleNamespace(
        time_manager=DaemonClock(),
        append_to_world_logs=log_callback,
        pause=lambda: None,
        resume_with_offset=lambda _offset: None,
    )
