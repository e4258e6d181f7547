"""The CLI harnesses under test, one row each: how the scripted provider must answer (the harness's
wire format and shell tool), the key and where it travels, and the two scripted conversations every
harness is run through (the calendar task, solved or with a wrong start time, and the two-turn email
task). tests/e2e/test_harnesses.py runs the common checks over this table; each harness's own file
checks what only that harness does, on the same runs."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from harness_support import CALENDAR_ANSWER, add_event_command, agent_env

TURN1 = "Maria Garcia's email address is maria.garcia@example.com."
TURN2 = "I emailed Maria (maria.garcia@example.com) with the subject 'Offsite agenda'."
MARIA = "maria.garcia@example.com"
EMAIL_TEXT = "Hi Maria, the offsite agenda will be ready by Thursday. Sam"
SEND_EMAIL = shlex.join(
    [
        "emails",
        "send-email",
        "--recipients",
        f'["{MARIA}"]',
        "--subject",
        "Offsite agenda",
        "--content",
        EMAIL_TEXT,
    ]
)
SEARCH_MARIA = "contacts search-contacts --query 'Maria Garcia'"
CALENDAR = "demo_calendar_add_event"
MULTI_TURN = "demo_multi_turn_email"
CALENDAR_CALLS = ["add_calendar_event", "send_message_to_user"]

Reply = dict[str, Any]


def text(message: str) -> Reply:
    """A plain-text model reply: the turn's answer, for every harness but mini."""
    return {"text": message}


def tool(name: str, **arguments: str) -> Callable[[str], Reply]:
    """A model reply calling the harness's shell tool `name` with the command in `command`'s place."""
    key = next(k for k, v in arguments.items() if v == "{command}")
    return lambda command: {"tool_calls": [{"name": name, "arguments": {**arguments, key: command}}]}


def mini_bash(command: str, note: str = "") -> Reply:
    """A reply calling mini's one tool."""
    return {"text": note, "tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def mini_submit(message: str) -> Reply:
    """mini's way to end a task: the rest of the output is the submission (the reply to the user)."""
    return mini_bash(f"cat <<'GAIA2_EOF'\nCOMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n{message}\nGAIA2_EOF")


@dataclass(frozen=True)
class HarnessCase:
    """One harness: its registry name, the provider it speaks, its fake-provider route and its key."""

    name: str
    provider: str  # GAIA2_AGENT_PROVIDER: the wire format
    route: str  # the fake provider's script key for that format
    key: str
    key_header: tuple[str, str]  # where the key reaches the provider: (header, value)
    shell: Callable[[str], Reply]  # a reply running one command with the harness's shell tool
    model_requests: Callable[[Any], list[dict]]  # the provider requests that are model calls
    path: str = ""  # base URL path
    model: str = "fake-model"
    timeout: float = 240  # one scenario run
    run_options: dict[str, str] = field(default_factory=dict)  # run_scenario's keyword arguments
    answer: Callable[[str], Reply] = text
    note_calls: bool = False  # mini: every command comes with a line of text
    search_first: bool = False  # the multi-turn script looks Maria up before answering
    keyless_cli: bool = False  # the CLI run goes to a keyless endpoint (as a local vLLM is)
    wrong_end: str = "15:00:00"
    wrong_calls_checked: int | None = None  # the CLI run's first app calls compared (None: all)
    marks: tuple = ()

    def run_env(self, fake) -> dict[str, str]:
        return agent_env(self.provider, fake, self.key, self.path, GAIA2_AGENT_MODEL=self.model)

    def command(self, command: str, note: str) -> Reply:
        return mini_bash(command, note) if self.note_calls else self.shell(command)

    def calendar_script(self, start: str = "14:00:00", end: str = "15:00:00") -> list[Reply]:
        return [self.command(add_event_command(start, end), "I add the event."), self.answer(CALENDAR_ANSWER)]

    def multi_turn_script(self) -> list[Reply]:
        first = [self.command(SEARCH_MARIA, "I look her up.")] if self.search_first else []
        return [*first, self.answer(TURN1), self.command(SEND_EMAIL, "I send the email."), self.answer(TURN2)]

    def cli_key(self) -> str | None:
        return None if self.keyless_cli else self.key


def _all(fake) -> list[dict]:
    return fake.requests


def _llm(fake) -> list[dict]:
    return fake.llm_requests()


def _chat(fake) -> list[dict]:
    return [r for r in fake.llm_requests() if r["route"] == "chat"]


def _marks(timeout: int, redteam: bool = True) -> tuple:
    return (pytest.mark.timeout(timeout), *((pytest.mark.redteam,) if redteam else ()))


CLAUDE_MODEL = "claude-sonnet-4-5"
GEMINI_MODEL = "gemini-2.5-flash"
CASES = {
    case.name: case
    for case in (
        HarnessCase(
            "claude-code",
            "anthropic",
            "anthropic",
            "sk-ant-test-KEY-123",
            ("x-api-key", "sk-ant-test-KEY-123"),
            tool("Bash", command="{command}", description="Run an app command"),
            _all,
            model=CLAUDE_MODEL,
            marks=_marks(600),
        ),
        HarnessCase(
            "codex",
            "openai",
            "responses",
            "sk-test-CODEX-SECRET-7731",
            ("authorization", "Bearer sk-test-CODEX-SECRET-7731"),
            tool("exec_command", cmd="{command}"),
            _llm,
            path="/v1",
            run_options={"runtime": "harness"},
            search_first=True,
            marks=_marks(900, redteam=False),
        ),
        HarnessCase(
            "gemini-cli",
            "gemini",
            "gemini",
            "AIza-test-KEY-123",
            ("x-goog-api-key", "AIza-test-KEY-123"),
            tool("run_shell_command", command="{command}", description="Run an app command"),
            _all,
            model=GEMINI_MODEL,
            timeout=300,
            marks=_marks(600),
        ),
        HarnessCase(
            "hermes",
            "openai-compat",
            "chat",
            "sk-hermes-SECRET-123",
            ("authorization", "Bearer sk-hermes-SECRET-123"),
            tool("terminal", command="{command}"),
            _chat,
            path="/v1",
            timeout=600,
            wrong_end="16:00:00",
            wrong_calls_checked=1,
            marks=_marks(900),
        ),
        HarnessCase(
            "mini-swe-agent",
            "openai-compat",
            "chat",
            "sk-test-mini",
            ("authorization", "Bearer sk-test-mini"),
            mini_bash,
            _llm,
            path="/v1",
            timeout=600,
            answer=mini_submit,
            note_calls=True,
            search_first=True,
            keyless_cli=True,
            marks=_marks(1800),
        ),
        HarnessCase(
            "openclaw",
            "openai-compat",
            "chat",
            "sk-test-OPENCLAW-SECRET",
            ("authorization", "Bearer sk-test-OPENCLAW-SECRET"),
            tool("exec", command="{command}"),
            _llm,
            path="/v1",
            timeout=600,
            marks=_marks(1800),
        ),
    )
}


def params() -> list:
    """The table as pytest parameters, each with its harness's markers (redteam, time limit)."""
    return [pytest.param(case, marks=case.marks, id=name) for name, case in CASES.items()]
