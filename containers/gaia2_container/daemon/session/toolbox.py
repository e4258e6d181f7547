"""The scenario's app tools as a name -> callable registry, with JSON schemas and CLI metadata."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# ARE's own agent hides these: user messages reach the agent as notifications instead.
HIDDEN_TOOLS = frozenset(
    {
        "AgentUserInterface__get_last_message_from_user",
        "AgentUserInterface__get_last_message_from_agent",
        "AgentUserInterface__get_last_unread_messages",
        "AgentUserInterface__get_all_messages",
    }
)

_JSON_TYPES = {
    "int": "integer",
    "float": "number",
    "str": "string",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
}


def json_type(arg_type: str) -> str:
    """Map ARE's type strings (`int`, `list[str]`, `str | None`) to a JSON schema type."""
    text = str(arg_type).replace("typing.", "").strip()
    base = text.split("|")[0].strip().split("[")[0].strip()
    return _JSON_TYPES.get(base, "string")


@dataclass(frozen=True)
class ToolSpec:
    """One tool as the agent sees it. `name`, `function` and `description` are ARE's public ones
    (`AppTool._public_name`, renamed in noise mode); `app` is the app's instance name (`Chats`,
    never the class); `are_function` is the app method ARE logs, whatever the agent calls it;
    `app_class` is the app's ARE class (`MessagingAppV2`), which the gaia2-cli surface maps by."""

    name: str
    app: str
    function: str
    description: str
    write: bool
    args: list[dict[str, Any]]
    are_function: str = ""
    app_class: str = ""
    # As ARE's own agent builds its tool from the AppTool (runtimes/are_default): the return type
    # string and the public description unstripped.
    return_type: str | None = None
    are_description: str | None = None

    def schema(self) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        for arg in self.args:
            prop: dict[str, Any] = {"type": json_type(arg["type"]), "description": arg["description"] or ""}
            if prop["type"] == "array":
                prop["items"] = {}
            properties[arg["name"]] = prop
            if not arg["has_default"]:
                required.append(arg["name"])
        return {"type": "object", "properties": properties, "required": required}

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "app": self.app,
            "function": self.function,
            "description": self.description,
            "write": self.write,
            "args": self.args,
            "parameters": self.schema(),
            "are_function": self.are_function,
            "app_class": self.app_class,
            "return_type": self.return_type,
            "are_description": self.are_description,
        }


class Toolbox:
    """Built from the live Environment so calls go through ARE's registered app methods."""

    def __init__(self, app_tools: list[Any]) -> None:
        self._tools: dict[str, Any] = {}
        self._specs: dict[str, ToolSpec] = {}
        for tool in app_tools:
            if tool.name in HIDDEN_TOOLS:
                continue
            public = getattr(tool, "_public_name", None) or tool.name
            are_function = tool.func_name if isinstance(tool.func_name, str) else tool.name.split("__", 1)[-1]
            description = getattr(tool, "_public_description", None) or tool.function_description
            self._tools[public] = tool
            self._specs[public] = ToolSpec(
                name=public,
                app=tool.app_name,
                function=public.split("__", 1)[1] if "__" in public else public,
                are_function=are_function,
                app_class=_class_name(tool),
                description=(description or "").strip(),
                return_type=None if tool.return_type is None else str(tool.return_type),
                are_description=getattr(tool, "_public_description", None),
                write=bool(tool.write_operation),
                args=[
                    {
                        "name": a.name,
                        "type": str(a.arg_type),
                        "description": a.description,
                        "has_default": bool(a.has_default),
                        "default": a.default if _is_plain(a.default) else str(a.default),
                    }
                    for a in tool.args
                ],
            )

    def specs(self) -> list[ToolSpec]:
        return list(self._specs.values())

    def spec(self, name: str) -> ToolSpec | None:
        return self._specs.get(name)

    def call(self, name: str, args: dict[str, Any]) -> Any:
        return self._tools[name](**args)


def _class_name(tool: Any) -> str:
    name = getattr(tool, "class_name", None)
    if isinstance(name, str) and name:
        return name
    instance = getattr(tool, "class_instance", None)
    return type(instance).__name__ if instance is not None else ""


def _is_plain(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str, list, dict))
