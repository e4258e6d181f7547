"""The Python half of `scripts/setup-model-server.sh --serve`: wait for the local llama-server, time
one first call of realistic size, and print the `gaia2-runner run-dataset` line to paste.

Why a measurement: on a CPU the model's first answer takes from tens of seconds to minutes, and a
scenario's `--timeout` must hold about ten of them, so the line carries a `--timeout` fitted to
this machine (containers/gaia2_container/budget.py's `fitting_limit`, the rule a too-slow run's
note quotes too). The call is as large as the first call of ARE's default agent on the demo
scenarios (~2,900 prompt tokens, a ~150-token reply): measured at that size, not extrapolated from
a short one, because prompt processing per token slows as the prompt grows.
Stdlib only: it runs before or without the project's virtualenv.

    python3 scripts/model_server.py free-port PORT
    python3 scripts/model_server.py report --port P --alias A --pid PID --log FILE [--agent are-default|llm]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import socket
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "containers"), str(REPO)]  # budget.py and the gaia2_contract it imports
from gaia2_container.budget import fitting_limit  # noqa: E402

CONTAINER_HOST = "host.containers.internal"  # the host as a scenario container sees it (endpoints.py)
FIRST_PROMPT_TOKENS = 2900  # ARE's default agent's first prompt on the demo scenarios: 2,886 tokens
REPLY_TOKENS = 150  # a Thought plus one JSON action, as the small models write it
HEALTH_TIMEOUT_S = 300.0  # loading the GGUF on a busy machine
MEASURE_TIMEOUT_S = 1800.0  # the measuring call on the slowest CPU worth trying
AGENTS = ("are-default", "llm")
DATASET_ROOT = "examples/scenarios"
LOG_TAIL_CHARS = 1500
FILLER = (
    "Event {i}: the team meets in room {i} on day {d} at {h}:00 to review the calendar, the "
    "contacts and the open messages; Alice Martin brings the notes and sends them to Bob.\n"
)


class ServeError(Exception):
    """The server did not come up or did not answer; the message says why and what to do."""


@dataclass(frozen=True)
class Speed:
    """One measured call: its wall time and the token counts the server reported."""

    seconds: float
    prompt_tokens: int
    reply_tokens: int


def free_port(port: int) -> bool:
    """Whether nothing listens on `port` (the server binds 0.0.0.0 there)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def _post(url: str, body: dict, timeout: float) -> dict:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return json.loads(answer.read())


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def log_tail(log: Path) -> str:
    try:
        return log.read_text(errors="replace")[-LOG_TAIL_CHARS:].strip()
    except OSError:
        return "(no log)"


def wait_healthy(port: int, pid: int, log: Path, timeout: float = HEALTH_TIMEOUT_S) -> float:
    """Seconds until `/health` answered 200; raises when the server exits or stays unready."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if not pid_alive(pid):
            raise ServeError(f"llama-server exited before it answered (log {log}):\n{log_tail(log)}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
                if answer.status == 200:
                    return time.monotonic() - t0
        except (urllib.error.URLError, OSError):
            pass  # not listening yet, or 503 while it loads the model
        time.sleep(0.5)
    raise ServeError(f"llama-server gave no healthy /health in {timeout:.0f} s (log {log}):\n{log_tail(log)}")


def measuring_prompt(port: int, tokens: int = FIRST_PROMPT_TOKENS) -> str:
    """A prompt of about `tokens` tokens of this model (counted by the server's /tokenize)."""
    block = "".join(FILLER.format(i=i, d=1 + i % 28, h=8 + i % 10) for i in range(10))
    try:
        per_block = len(_post(f"http://127.0.0.1:{port}/tokenize", {"content": block}, 30)["tokens"])
    except (urllib.error.URLError, OSError, KeyError, ValueError):
        per_block = max(1, len(block) // 4)  # English text: about four characters a token
    return block * max(1, round(tokens / per_block))


def measure(port: int, alias: str, timeout: float = MEASURE_TIMEOUT_S) -> Speed:
    """Time one chat completion of a first call's size, as the agent waits for it (wall time)."""
    body = {
        "model": alias,
        "max_tokens": REPLY_TOKENS,
        "ignore_eos": True,
        "temperature": 0,
        "messages": [
            {"role": "system", "content": measuring_prompt(port)},
            {"role": "user", "content": "Summarise the events above."},
        ],
    }
    t0 = time.monotonic()
    try:
        answer = _post(f"http://127.0.0.1:{port}/v1/chat/completions", body, timeout)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise ServeError(f"the measuring request failed: {exc}") from exc
    seconds = time.monotonic() - t0
    usage = answer.get("usage") or {}
    return Speed(
        round(seconds, 1), int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    )


def program() -> str:
    """How to call the CLI from the repository root: by name when it is on PATH, else the venv's."""
    from shutil import which

    return "gaia2-runner" if which("gaia2-runner") else ".venv/bin/gaia2-runner"


def run_line(
    port: int, alias: str, timeout_s: int, agent: str = "are-default", cli: str = "gaia2-runner"
) -> str:
    """The run-dataset command for the demo scenarios on this server: agent and judge on it, one
    scenario at a time (the server has one slot), the fitted --timeout. Lines end with ` \\`."""
    url = f"http://{CONTAINER_HOST}:{port}/v1"
    slug = alias.replace("/", "-")
    parts = [
        [cli, "run-dataset", "--dataset-root", DATASET_ROOT, "--agent", agent],
        ["--provider", "openai-compat", "--model", alias],
        ["--base-url", url],
        ["--judge-provider", "openai-compat", "--judge-model", alias],
        ["--judge-base-url", url],
        ["--concurrency", "1", "--timeout", str(timeout_s), "--output-dir", f"out/{slug}-{agent}-demo"],
    ]
    return " \\\n    ".join(shlex.join(words) for words in parts)


def run_words(printed: str) -> list[str]:
    """The run line in what `report` printed, as argv (for the tests and for wrappers)."""
    lines = printed.splitlines()
    start = next(i for i, line in enumerate(lines) if " run-dataset " in line)
    end = next(i for i in range(start, len(lines)) if not lines[i].endswith("\\"))
    return shlex.split(" ".join(line.rstrip("\\") for line in lines[start : end + 1]))


def report(port: int, alias: str, pid: int, log: Path, agent: str, stop_command: str) -> str:
    """Wait for the server, measure it, and return what to print."""
    wait_healthy(port, pid, log)
    print(
        f"llama-server answers on 0.0.0.0:{port}; timing one first call of ~{FIRST_PROMPT_TOKENS} prompt "
        f"tokens (1-3 min for the 0.5B model on 2 cores)…",
        file=sys.stderr,
        flush=True,
    )
    speed = measure(port, alias)
    limit = fitting_limit(speed.seconds)
    return "\n".join(
        [
            f"llama-server serves {alias} on 0.0.0.0:{port} (pid {pid}; log {log})",
            f"measured: a first call of {speed.prompt_tokens} prompt tokens and a {speed.reply_tokens}-token reply "
            f"took {speed.seconds:.1f} s, so --timeout {limit} (about ten such calls per scenario)",
            "",
            "Run the 9 demo scenarios on it, from the repository root (one at a time, each given up to "
            f"{math.ceil(limit / 60)} min; rerun the line to resume):",
            "",
            run_line(port, alias, limit, agent, program()),
            "",
            f"Stop the server: {stop_command}",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("free-port", help="exit 0 when nothing listens on PORT")
    check.add_argument("port", type=int)
    rep = sub.add_parser("report", help="wait, measure and print the run line")
    rep.add_argument("--port", type=int, required=True)
    rep.add_argument("--alias", required=True)
    rep.add_argument("--pid", type=int, required=True)
    rep.add_argument("--log", type=Path, required=True)
    rep.add_argument("--agent", choices=AGENTS, default=AGENTS[0])
    rep.add_argument("--stop-command", required=True)
    args = parser.parse_args(argv)
    if args.command == "free-port":
        return 0 if free_port(args.port) else 1
    try:
        print(report(args.port, args.alias, args.pid, args.log, args.agent, args.stop_command))
    except ServeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
