"""The turn driver: inbox batch in, one harness run (a turn), its final reply out to the user.

Exit codes: 0 when the scenario is over, 2 for a bad profile or settings, 3 when a turn ended
without a reply (the reason goes to $HOME/agent_error.txt, which the daemon adds to the run's
error), 4 when the daemon's tool API is unreachable.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from gaia2_contract import constants as contract
from gaia2_contract import routes
from gaia2_contract.harness_profile import Profile, ProfileError

from ..gaia2_cli.instructions import render_instructions
from ..tools_client import ToolApiError, call_tool, give_up, request, scenario_over, wait_for_tools
from .profile import load, read_reply, render

log = logging.getLogger("gaia2.harness")

EXIT_SETTINGS, EXIT_NO_REPLY, EXIT_DAEMON = 2, 3, 4
SEND_TO_USER = "AgentUserInterface__send_message_to_user"
POLL_S = 0.2
STDOUT_CAP = 16 << 20
RELAY_URL = f"http://127.0.0.1:{contract.RELAY_PORT}"
# A keyless endpoint (a local vLLM or Ollama) still needs a key for Gemini CLI, litellm and others,
# which refuse to start without one; the endpoint ignores it.
NO_KEY = "gaia2-no-key"
WHO = "harness"


# How ARE's notification system words a user message (what its own agents read); gaia2-cli gives a
# harness the user's words alone.
_ARE_USER_MESSAGE = re.compile(
    r"\AReceived at: [^\n]*\nSender: [^\n]*\nMessage: (.*)\nAlready read: [^\n]*(\nRead at: [^\n]*)?\Z",
    re.DOTALL,
)


def user_words(content: str) -> str:
    match = _ARE_USER_MESSAGE.match(content)
    return match.group(1) if match else content


def batch_prompt(items: list[dict[str, Any]]) -> str:
    """One turn's text from new inbox items: the user's words as they are, then app notifications
    (`[Notification] …`, or `[Notifications]` with one `- …` line each), as gaia2-cli sends them."""
    users = [user_words(str(i.get("content", ""))) for i in items if i.get("sender", "user") == "user"]
    notes = [" ".join(str(i.get("content", "")).split()) for i in items if i.get("sender", "user") != "user"]
    parts = list(users)
    if len(notes) == 1:
        parts.append(f"[Notification] {notes[0]}")
    elif notes:
        parts.append("[Notifications]\n" + "\n".join(f"- {n}" for n in notes))
    return "\n\n".join(parts)


class Turns:
    """Runs the profile's commands, one per turn, and reads each turn's reply."""

    def __init__(self, profile: Profile, values: dict[str, Any], home: Path) -> None:
        self.profile = profile
        self.values = values
        self.home = home
        self.count = 0

    def prepare(self, instructions: str) -> None:
        (self.home / ".gaia2").mkdir(parents=True, exist_ok=True)
        if self.profile.instructions_file:
            path = self.home / self.profile.instructions_file
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(instructions, encoding="utf-8")
        for rel, content in self.profile.files.items():
            path = self.home / render(rel, self.values)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render(content, self.values), encoding="utf-8")

    def run(self, prompt: str) -> tuple[str, str]:
        """Run one turn; (reply, why there is none)."""
        self.count += 1
        values = {
            **self.values,
            "prompt": prompt,
            "turn": self.count,
            "reply_path": str(self.home / ".gaia2" / f"reply-{self.count}.txt"),
        }
        argv = [
            render(a, values)
            for a in (self.profile.first_turn if self.count == 1 else self.profile.next_turn)
        ]
        env = {**os.environ, **{k: render(v, values) for k, v in self.profile.env.items()}}
        reply_file = None
        if self.profile.reply_kind == "file":
            reply_file = self.home / render(self.profile.reply_arg or "{reply_path}", values)
        log.info("turn %d: %s", self.count, " ".join(argv[:1] + ["…"]))
        started = time.monotonic()
        code, stdout = _run(argv, env, self.home, self.profile.turn_timeout_s)
        reply = read_reply(self.profile, stdout, reply_file)
        if reply and code != 0 and self.profile.reply_on_exit_0:
            log.info(
                "turn %d: exit %s, so its output is an error report, not a reply: %.300s",
                self.count,
                code,
                reply,
            )
            reply = ""
        log.info(
            "turn %d: exit %s after %.1fs, reply of %d characters",
            self.count,
            code,
            time.monotonic() - started,
            len(reply),
        )
        if reply:
            return reply, ""
        if code is None:
            return (
                "",
                f"{self.profile.name}: turn {self.count} still running after {self.profile.turn_timeout_s:g}s",
            )
        return "", f"{self.profile.name}: turn {self.count} ended (exit code {code}) without a final reply"


def _run(argv: list[str], env: dict[str, str], cwd: Path, timeout_s: float) -> tuple[int | None, str]:
    """Run the harness; its stdout is kept (capped) and echoed, stderr goes to our log as is."""
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=sys.stdout,
            env=env,
            cwd=str(cwd),
            start_new_session=True,
        )
    except OSError as exc:
        print(f"harness: cannot start {argv[0]}: {exc}", flush=True)
        return 127, ""
    assert proc.stdout is not None
    stdout = proc.stdout  # narrowed: the closure below sees an IO[bytes]
    kept: list[bytes] = []
    size = 0

    def pump() -> None:
        nonlocal size
        for line in iter(stdout.readline, b""):
            sys.stdout.buffer.write(line)
            sys.stdout.flush()
            if size < STDOUT_CAP:
                kept.append(line[: STDOUT_CAP - size])
                size += len(kept[-1])

    reader = threading.Thread(target=pump, name="harness-stdout", daemon=True)
    reader.start()
    try:
        code: int | None = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        code = None
    # The whole process group: harnesses leave helpers (shells, language servers) behind.
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        if sig == signal.SIGTERM:
            try:
                proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                continue
    reader.join(timeout=5)
    return code, b"".join(kept).decode("utf-8", errors="replace")


class Driver:
    def __init__(self, turns: Turns) -> None:
        self.turns = turns
        self.inbox_next = 0

    def next_batch(self) -> list[dict[str, Any]] | None:
        """Block until new inbox items arrive (None: the scenario is over)."""
        while True:
            page = request("GET", routes.inbox_after(self.inbox_next - 1))
            if page.get("done"):
                return None
            items = page.get("messages") or []
            if items:
                self.inbox_next = max(self.inbox_next, int(page.get("next", self.inbox_next)))
                return items
            time.sleep(POLL_S)

    def run(self) -> str | None:
        """Turns until the scenario is over (None) or a turn gives no reply (why)."""
        while (items := self.next_batch()) is not None:
            reply, why = self.turns.run(batch_prompt(items))
            if not reply:
                return why
            outcome = call_tool(SEND_TO_USER, {"content": reply})
            if not outcome.get("ok"):
                log.warning("sending the reply failed: %s", outcome.get("error"))
        return None


def settings_values(home: Path) -> dict[str, Any]:
    """The placeholders every turn shares."""
    return {
        "model": os.environ.get(contract.ENV_AGENT_MODEL, ""),
        "api_key": os.environ.get(contract.ENV_AGENT_API_KEY) or NO_KEY,
        # The relay (daemon/relay/proxy.py) stands in for the provider's base URL.
        "base_url": os.environ.get(contract.ENV_AGENT_BASE_URL, RELAY_URL).rstrip("/"),
        "home": str(home),
    }


def main() -> int:
    logging.basicConfig(
        level=os.environ.get("GAIA2_LOG_LEVEL", "INFO"), format="%(asctime)s harness: %(message)s"
    )
    home = Path(os.environ.get("HOME") or contract.AGENT_DIR)
    try:
        profile = load()
        values = settings_values(home)
        turns = Turns(profile, values, home)
        tools = wait_for_tools()
        sim_time = request("GET", routes.TIME).get("sim_time")
        instructions = render_instructions(tools, sim_time, exec_tool=profile.exec_tool, home=str(home))
        values.update(
            instructions=instructions,
            instructions_path=str(home / (profile.instructions_file or "AGENTS.md")),
        )
        turns.prepare(instructions)
    except ProfileError as exc:
        return give_up(EXIT_SETTINGS, f"profile error: {exc}", WHO)
    except ToolApiError as exc:
        return give_up(EXIT_DAEMON, f"tool API error: {exc}", WHO)
    log.info("harness %s ready: %d tools", profile.name, len(tools))
    try:
        why = Driver(turns).run()
    except ToolApiError as exc:
        if scenario_over():
            return 0
        return give_up(EXIT_DAEMON, f"tool API error: {exc}", WHO)
    if why:
        return give_up(EXIT_NO_REPLY, why, WHO)
    log.info("scenario over")
    return 0
