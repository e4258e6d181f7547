"""What one run setting is: its declaration (config/schema.py lists them) and the checks of a value.

A `Setting` says everything about a setting once: type, default, bounds, help, TOML key, flag and
host variable. The TOML type check, the bounds check (`Setting.problem`), the command-line options
(cli/options.py) and the reference page are derived from it; the config dataclasses
(config/model.py) are written out for type checkers and kept in step with it by a unit test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

# Python types of each kind once parsed (None: the setting's value may be absent).
_TYPES = {
    "str": "str",
    "path": "Path",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "splits": "list[str]",
    "options": "dict[str, Any]",
    "env": "dict[str, str]",
    "hosts": "tuple[HostSpec, ...]",
    "shard": "Shard",
}
_EMPTY = {"options": dict, "env": dict, "hosts": tuple}  # kinds whose absent value is an empty container

KIND_WORDS = {
    "str": "a string",
    "path": "a path string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "splits": 'a split name, a list of names, or "all"',
    "options": "a table",
    "env": "a table of strings",
    "hosts": 'a list of engine API URLs (["unix:///run/podman/podman.sock", "ssh://user@host/run/podman/podman.sock=4"])',
    "shard": 'I/N (a string, e.g. "2/8")',
}


# The groups `--help` shows settings in (cli/options.py); a setting's section gives its panel
# unless its declaration names another (`panel`).
PANELS = {
    "target": "Target",
    "agent": "Agent",
    "judge": "Judge",
    "execution": "Execution",
    "output": "Output",
}
SECTION_PANELS = {"target": "target", "agent": "agent", "judge": "judge", "run": "execution"}


def type_ok(kind: str, value: Any) -> bool:
    """Whether a TOML value fits a setting's kind (bool is not an int here)."""
    if kind in ("str", "path", "shard"):
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "splits":
        return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
    if kind == "options":
        return isinstance(value, dict)
    if kind == "hosts":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == "env":
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    return False


@dataclass(frozen=True)
class Setting:
    """One run setting. `minimum`/`maximum` bound a number (`unit` words the messages: "seconds"
    make a positive duration, "USD" a positive amount, other words a range); `choices` bound a
    string (`noun` words the message as "unknown <noun> ..."; without one, case does not matter)."""

    name: str  # flag / override name: `--judge-model` is judge_model
    section: str  # TOML section
    key: str  # TOML key inside the section
    kind: str  # str, int, float, bool, path, splits, options, env, hosts, shard
    help: str
    default: Any = None  # a value, or a function of no arguments computing it (per machine)
    minimum: float | None = None
    maximum: float | None = None
    unit: str = ""
    choices: tuple[str, ...] | None = None
    noun: str = ""
    env_var: str | None = None  # a host environment variable that also sets it
    secret: bool = False
    flag_name: str | None = None  # when the flag is not the name with dashes
    panel: str | None = None  # the `--help` group (a key of PANELS) when not its section's
    # The setting's old TOML key and flag, still accepted (with a warning) for one release.
    deprecated_key: str | None = None
    deprecated_flag: str | None = None

    @property
    def help_panel(self) -> str:
        """The title of the `--help` group this setting's option is listed in."""
        return PANELS[self.panel or SECTION_PANELS[self.section]]

    @property
    def flag(self) -> str:
        return self.flag_name or "--" + self.name.replace("_", "-")

    @property
    def negative(self) -> bool:
        """A bool whose flag turns it off (`--no-sweep` sets sweep = false)."""
        return self.kind == "bool" and self.flag.startswith("--no-")

    @property
    def annotation(self) -> str:
        optional = self.default is None and self.kind not in _EMPTY
        return _TYPES[self.kind] + (" | None" if optional else "")

    def value_default(self) -> Any:
        """The default value itself (a computed one computed now; an empty container for a table)."""
        if self.kind in _EMPTY and self.default is None:
            return _EMPTY[self.kind]()
        return self.default() if callable(self.default) else self.default

    def problem(self, value: Any) -> str | None:
        """What is wrong with a parsed value, as the second half of an `error:` line; None if fine."""
        if value is None:
            return None
        if self.choices is not None:
            return self._choice_problem(value)
        if self.minimum is None and self.maximum is None:
            return None
        return (self._float_problem if self.kind == "float" else self._int_problem)(value)

    def _choice_problem(self, value: str) -> str | None:
        choices = self.choices or ()
        if self.noun:
            return None if value in choices else f"unknown {self.noun} {value!r}: use {', '.join(choices)}"
        if str(value).upper() in choices:
            return None
        return f"{self.name} must be {', '.join(choices[:-1])} or {choices[-1]}"

    def _int_problem(self, value: int) -> str | None:
        low, high, name = self.minimum, self.maximum, self.name
        if self.unit:  # a range in words: "max_tokens must be 1 to 10000000000 tokens per scenario"
            ok = (low is None or value >= low) and (high is None or value <= high)
            return None if ok else f"{name} must be {_num(low)} to {_num(high)} {self.unit}, got {value}"
        if low is not None and value < low:
            return f"{name} must be at least {_num(low)}"
        if high is not None and value > high:
            return f"{name} must be at most {_num(high)}, got {value}"
        return None

    def _float_problem(self, value: float) -> str | None:
        low, high, name, unit = self.minimum, self.maximum, self.name, self.unit
        if low == 0 and high is None:  # a positive amount
            return (
                None
                if math.isfinite(value) and value > 0
                else f"{name} must be a positive number of {unit}, got {value:g}"
            )
        if low == 0:  # a positive duration with a ceiling
            if not math.isfinite(value):
                return f"{name} must be a finite number of {unit}, got {value}"
            if value <= 0:
                return f"{name} must be positive"
            return (
                f"{name} must be at most {high:g} {unit}, got {value:g}"
                if high is not None and value > high
                else None
            )
        ok = math.isfinite(value) and (low is None or value >= low) and (high is None or value <= high)
        return None if ok else f"{name} must be between {low:g} and {high:g} ({unit}), got {value:g}"


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
