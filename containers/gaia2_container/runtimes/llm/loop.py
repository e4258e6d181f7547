"""The agent loop: inbox message in, model and tool calls, a message to the user out; repeat until done.

Exit codes: 0 when the scenario is over, 2 for bad settings, 3 when the model provider failed
for good (the reason also goes to $HOME/agent_error.txt, which the daemon puts in its error),
4 when the daemon's tool API is unreachable.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from gaia2_contract import routes
from gaia2_contract.constants import AGENT_NOTE_FILE, TRACE_FILE

from ..tools_client import ToolApiError, call_tool, give_up, request, scenario_over, wait_for_tools
from .context import trim
from .messages import Message, Tool, ToolCall
from .prompt import SEND_TO_USER, inbox_text, system_prompt
from .providers import Provider, make_provider
from .providers.base import new_call_id
from .settings import Settings, SettingsError
from .text_calls import UNPARSED, TextCalls
from .trace import Redactor, TraceWriter
from .transport import ProviderError, RetryPolicy, Transport

log = logging.getLogger("gaia2.llm_agent")

EXIT_SETTINGS, EXIT_PROVIDER, EXIT_DAEMON = 2, 3, 4
POLL_S = 0.2
STEP_LIMIT_ANSWER = "I could not finish this task within my step limit."
CONTINUE_PROMPT = "Continue: call a tool, or answer the user."
NO_TOOL_CALL_NOTE = (
    "the model never produced a parsable tool call ({replies} replies, none with a tool call the runtime "
    "could read): its text was sent to the user as the answer"
)


class Agent:
    def __init__(
        self,
        provider: Provider,
        tools: list[Tool],
        max_steps: int,
        max_context_chars: int,
        max_result_chars: int,
        note_path: Path | None = None,
    ) -> None:
        self.provider = provider
        self.tools = tools
        self.max_steps = max_steps
        self.max_context_chars = max_context_chars
        self.max_result_chars = max_result_chars
        self.messages: list[Message] = []
        self.inbox_next = 0
        # $HOME/agent_note.txt: written while no reply of the model held a tool call we could read,
        # so the run's result says why the agent did nothing (the daemon adds it as a note).
        self.note_path = note_path
        self.replies = 0
        self.readable_calls = 0

    # ---- inbox -------------------------------------------------------------------------------
    def pull_inbox(self) -> tuple[int, bool]:
        """Append new inbox messages to the conversation; return (how many, scenario done)."""
        page = request("GET", routes.inbox_after(self.inbox_next - 1))
        for item in page["messages"]:
            self.messages.append(
                Message(
                    "user",
                    inbox_text(item.get("sender", "user"), item.get("content", ""), item.get("sim_time")),
                )
            )
        self.inbox_next = max(self.inbox_next, int(page.get("next", self.inbox_next)))
        return len(page["messages"]), bool(page.get("done"))

    def wait_for_input(self) -> bool:
        """Block until a new message arrives (True) or the scenario is over (False)."""
        while True:
            count, done = self.pull_inbox()
            if done:
                return False
            if count:
                return True
            time.sleep(POLL_S)

    # ---- one turn ------------------------------------------------------------------------------
    def run_turn(self) -> bool:
        """Work until a message reaches the user; False when the scenario ended meanwhile."""
        for step in range(self.max_steps):
            trimmed = trim(self.messages, self.max_context_chars)
            if trimmed:
                log.info("context trimmed: %d older messages shortened", trimmed)
            reply = self.provider.complete(self.messages, self.tools)
            self.replies += 1
            self.messages.append(reply.as_message(self.provider.name))
            log.info(
                "step %d: %d tool call(s)%s%s",
                step,
                len(reply.tool_calls),
                ", text" if reply.text else "",
                f", {len(reply.text_calls.calls)} written as text" if reply.text_calls else "",
            )
            if reply.text_calls:
                if self._run_text_call(reply.text_calls):
                    return True
            elif not reply.tool_calls:
                if reply.text.strip():
                    return self._answer(reply.text)
                self.messages.append(Message("user", CONTINUE_PROMPT))
                continue
            else:
                self._readable(len(reply.tool_calls))
                if self._run_calls(reply.tool_calls):
                    return True
            _, done = self.pull_inbox()
            if done:
                return False
        log.warning("step limit (%d) reached: ending the turn", self.max_steps)
        return self._answer(STEP_LIMIT_ANSWER)

    def _run_calls(self, calls: list[ToolCall]) -> bool:
        """Run the model's tool calls in order; True when one of them was the message to the user."""
        answered = False
        for call in calls:
            if answered:
                self._tool_result(
                    call, {"ok": False, "error": "not run: your turn ended with the message to the user"}
                )
                continue
            outcome = self._call(call)
            self._tool_result(call, outcome)
            answered = call.name == SEND_TO_USER and bool(outcome.get("ok"))
        return answered

    def _run_text_call(self, found: TextCalls) -> bool:
        """Run the first call the model wrote as text (the others are reported, not run) and give
        the result back as a user message: the model's text stays in the conversation as it was,
        which every server accepts, with no tool-call id the model never made (docs/reference/llm-agent.md)."""
        call = found.first
        if call.error is None:
            self._readable(1)
            outcome = self._call(ToolCall(new_call_id(), call.name, call.arguments))
        else:
            outcome = {"ok": False, "error": call.error}
        text = f"[Result of your tool call {call.name or '(unreadable)'}]\n{self._result_text(outcome)}"
        if found.ignored:
            text += (
                f"\n[{found.ignored} more tool call(s) in your reply were not run: call one tool per reply "
                "and wait for its result]"
            )
        self.messages.append(Message("user", text, name=call.name or "?", is_error=not outcome.get("ok")))
        return call.name == SEND_TO_USER and bool(outcome.get("ok"))

    def _readable(self, count: int) -> None:
        """Count calls the runtime could read; the first one withdraws the no-tool-call note."""
        self.readable_calls += count
        if self.note_path is not None and count:
            self.note_path.unlink(missing_ok=True)

    def _call(self, call: ToolCall) -> dict[str, Any]:
        if UNPARSED in call.arguments:
            return {"ok": False, "error": "the arguments were not a valid JSON object"}
        try:
            return call_tool(call.name, call.arguments)
        except ToolApiError as exc:
            if "HTTP 404" in str(exc):
                return {"ok": False, "error": f"unknown tool {call.name!r}"}
            if "HTTP 400" in str(exc):
                return {"ok": False, "error": str(exc)}
            raise

    def _tool_result(self, call: ToolCall, outcome: dict[str, Any]) -> None:
        self.messages.append(
            Message(
                "tool",
                self._result_text(outcome),
                tool_call_id=call.id,
                name=call.name,
                is_error=not outcome.get("ok"),
            )
        )

    def _result_text(self, outcome: dict[str, Any]) -> str:
        if outcome.get("ok"):
            result = outcome.get("result")
            text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
        else:
            text = f"Error: {outcome.get('error')}"
        if len(text) > self.max_result_chars:
            text = text[: self.max_result_chars] + f"\n[truncated: {len(text)} characters in total]"
        return text

    def _answer(self, text: str) -> bool:
        """Plain text from the model is its answer: deliver it, which ends the turn."""
        if not self.readable_calls:
            self._write_note(NO_TOOL_CALL_NOTE.format(replies=self.replies))
        outcome = call_tool(SEND_TO_USER, {"content": text})
        if not outcome.get("ok"):
            log.warning("sending the answer failed: %s", outcome.get("error"))
        return True

    def _write_note(self, text: str) -> None:
        """Before the answer goes out: the answer may end the scenario, and the daemon reads the note then."""
        if self.note_path is None:
            return
        try:
            self.note_path.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            log.warning("cannot write %s: %s", self.note_path, exc)

    def run(self) -> None:
        while self.wait_for_input():
            if not self.run_turn():
                return


def main() -> int:
    logging.basicConfig(
        level=os.environ.get("GAIA2_LOG_LEVEL", "INFO"), format="%(asctime)s agent: %(message)s"
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # its request lines would only repeat the trace
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        return give_up(EXIT_SETTINGS, f"settings error: {exc}", "agent")
    redact = Redactor(settings.api_key)
    opts = settings.options
    home = Path(os.environ.get("HOME", "."))
    trace = TraceWriter(home / TRACE_FILE, redact, settings.provider, settings.model)
    transport = Transport(
        trace,
        redact,
        opts.request_timeout_s,
        RetryPolicy(opts.max_retries, opts.retry_base_s, opts.retry_max_s),
        shown=(settings.base_url, settings.public_base_url),
        limit_s=settings.limit_s,
    )
    try:
        specs = wait_for_tools()
        tools = [Tool(t["name"], t.get("description") or "", t["parameters"]) for t in specs]
        sim_time = request("GET", routes.TIME).get("sim_time")
        provider = make_provider(settings, transport)
        agent = Agent(
            provider,
            tools,
            opts.max_steps_per_turn,
            opts.max_context_chars,
            opts.max_tool_result_chars,
            note_path=home / AGENT_NOTE_FILE,
        )
        agent.messages.append(Message("system", system_prompt(sim_time, {t.name for t in tools})))
        log.info("provider %s, model %s, %d tools", settings.provider, settings.model, len(tools))
        agent.run()
    except ProviderError as exc:
        return give_up(EXIT_PROVIDER, f"provider error: {redact(str(exc))}", "agent")
    except ToolApiError as exc:
        if scenario_over():
            return 0
        return give_up(EXIT_DAEMON, f"tool API error: {exc}", "agent")
    finally:
        transport.close()
    log.info("scenario over")
    return 0
