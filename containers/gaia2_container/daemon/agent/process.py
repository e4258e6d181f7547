"""Start the agent runtime as the unprivileged `agent` user, without the judge's settings."""

from __future__ import annotations

import logging
import os
import pwd
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gaia2_contract import constants as contract

from ... import places
from ..processes import OWN_CHILDREN, kill_user_processes
from .limits import AGENT_TMP, agent_oom_score, oom_kills, stop_reason
from .output_caps import CappedAgentLog

log = logging.getLogger("gaia2.agent")

AGENT_USER = "agent"
# Variables the agent must not see: the judge's credentials and settings, the adapter token, the
# provider key (the agent gets the run's placeholder instead: daemon/relay/key.py), the expert
# sub-agents' settings and key (Agent2Agent: daemon/a2a.py), the host's proxy settings (a proxy URL
# may carry a password, and the agent reaches nothing but 127.0.0.1: daemon/agent/egress.py).
_PRIVATE_PREFIXES = (contract.JUDGE_ENV_PREFIX, contract.A2A_ENV_PREFIX)
_PRIVATE_NAMES = frozenset({contract.ENV_ADAPTER_TOKEN, contract.ENV_AGENT_API_KEY, *contract.PROXY_VARS})
# GAIA2_RUNTIME value -> module of gaia2_container.runtimes run with `python -m`.
BUILTIN_RUNTIMES = {
    "oracle": "gaia2_container.runtimes.oracle",
    "agent": "gaia2_container.runtimes.llm",
    "harness": "gaia2_container.runtimes.harness",  # a CLI harness image (its profile.toml)
    "are-default": "gaia2_container.runtimes.are_default",  # ARE's own default agent (gaia2-run's)
}


def agent_command(runtime: str) -> list[str] | None:
    """GAIA2_AGENT_COMMAND wins; otherwise the built-in runtime named by GAIA2_RUNTIME. SystemExit
    with one line (never the command, which may hold a secret) when neither can be run."""
    custom = os.environ.get(contract.ENV_AGENT_COMMAND)
    if custom:
        try:
            return shlex.split(custom)
        except ValueError as exc:  # unbalanced quotes: the run ends with this line, never a traceback
            raise SystemExit(
                f"{contract.ENV_AGENT_COMMAND} cannot be split into words with POSIX shell "
                f"quoting ({exc}): fix its quotes"
            ) from None
    if runtime in BUILTIN_RUNTIMES:
        return [sys.executable, "-m", BUILTIN_RUNTIMES[runtime]]
    if runtime in ("none", ""):
        return None  # an external agent drives the tool API (tests, custom images)
    raise SystemExit(
        f"unknown GAIA2_RUNTIME {runtime!r}: use {', '.join(map(repr, BUILTIN_RUNTIMES))}, 'none'"
        " or set GAIA2_AGENT_COMMAND"
    )


def agent_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """The daemon's environment minus the judge's settings, the adapter token, the provider key and
    the proxy settings, plus where the tool API and app commands are."""
    env = {
        k: v
        for k, v in (base or os.environ).items()
        if not k.startswith(_PRIVATE_PREFIXES) and k not in _PRIVATE_NAMES
    }
    env[contract.ENV_TOOLS_URL] = places.TOOLS_URL
    env["HOME"] = str(places.AGENT_HOME)
    env["TMPDIR"] = AGENT_TMP  # the daemon's own is root's (limit_reasons.use_private_tmp)
    env["PATH"] = f"{places.BIN_PATH}:{env.get('PATH', '/usr/local/bin:/usr/bin:/bin')}"
    return env


def agent_identity() -> dict[str, Any]:
    """subprocess arguments that run a child as the agent user: its uid and gid, no other groups.

    Empty when the daemon is not root (it already runs as the agent would) or the image has no
    agent user."""
    if os.geteuid() != 0:
        return {}
    try:
        pw = pwd.getpwnam(AGENT_USER)
    except KeyError:
        return {}
    return {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}


class AgentProcess:
    """The runtime's process; `on_exit` reports an exit the daemon did not ask for."""

    def __init__(
        self,
        command: list[str],
        log_path: Path,
        on_exit: Callable[[int], None],
        env_overrides: dict[str, str] | None = None,
    ) -> None:
        self.command = command
        self.env_overrides = env_overrides or {}
        self.log_path = log_path
        self.on_exit = on_exit
        self.proc: subprocess.Popen[bytes] | None = None
        self.output: CappedAgentLog | None = None
        self.oom_kills_before = 0
        self._stopping = False

    def start(self) -> None:
        kwargs = agent_identity()
        if os.geteuid() == 0 and not kwargs:
            log.warning("no %r user in this image: the agent runs as root", AGENT_USER)
        places.AGENT_HOME.mkdir(parents=True, exist_ok=True)
        if kwargs:  # a tmpfs of the runner's (sandbox/container_limits.py) starts out root's
            os.chown(places.AGENT_HOME, kwargs["user"], kwargs["group"])
        self.output = CappedAgentLog(self.log_path)
        self.oom_kills_before = oom_kills()
        with agent_oom_score():
            self.proc = subprocess.Popen(
                self.command,
                stdout=self.output.write_fd,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**agent_environment(), **self.env_overrides},
                cwd=str(places.AGENT_HOME),
                **kwargs,
            )
        self.output.close_writer()
        OWN_CHILDREN.add(self.proc.pid)  # its exit status is _wait's
        log.info("agent runtime started: pid %s: %s", self.proc.pid, " ".join(self.command))
        threading.Thread(target=self._wait, name="agent-wait", daemon=True).start()

    def _wait(self) -> None:
        assert self.proc is not None
        code = self.proc.wait()
        OWN_CHILDREN.discard(self.proc.pid)
        log.info("agent runtime exited with code %s", code)
        if not self._stopping:
            self.on_exit(code)

    def limit_reason(self) -> str | None:
        """Which of the container's limits the agent met (memory, its writable space), in words."""
        return stop_reason(self.oom_kills_before, {"$HOME": places.AGENT_HOME, "/tmp": Path("/tmp")})

    def stop(self, grace_s: float) -> None:
        """End the runtime (SIGTERM, SIGKILL after `grace_s`), then whatever it left running."""
        if self.proc is not None and self.proc.poll() is None:
            self._stopping = True
            self.proc.terminate()
            try:
                self.proc.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.kill_all()

    def kill_all(self) -> None:
        """SIGKILL every process of the agent user, the runtime's strays included (background
        jobs, a daemonized server, a fork bomb). Nothing when the agent has no user of its own."""
        uid = agent_identity().get("user")
        if uid is None or self.proc is None:
            return
        self._stopping = True
        killed = kill_user_processes(uid)
        if killed:
            log.info("killed %d process(es) of the agent user", killed)
