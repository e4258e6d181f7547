"""The host side of the runner <-> container contract (docs/container-contract.md).

Both config (the container variables) and sandbox use it, so it sits below them. The container
keeps its own copy in containers/gaia2_container/contract.py (it cannot import the
host package); tests/test_contract.py asserts the two agree.
"""

from __future__ import annotations

ADAPTER_PORT = 8090
INPUT_DIR = "/gaia2/input"
OUTPUT_DIR = "/gaia2/output"
AGENT_DIR = "/gaia2/agent"  # the agent user's $HOME (a tmpfs of the run's disk size)
BIN_DIR = "/gaia2/bin"  # the app commands the daemon writes at start
SCENARIO_FILE_NAME = "scenario.json"
CA_BUNDLE_PATH = "/gaia2/ca-bundle.pem"
# The Files app's data directory (--filesystem-dir), mounted read-only here (inside INPUT_DIR,
# which the agent user cannot enter).
FILESYSTEM_DIR = "/gaia2/input/filesystem"

# Statuses /status reports as final.
# Judged (a verdict in `judgment`): completed (every turn, or ARE's clock ran out), failed (a turn
# before the last was rejected), agent_exit (the agent stopped, whatever its exit code), timeout (the
# agent was still working when its time was up). No verdict: error (an infrastructure failure).
JUDGED_STATUSES = frozenset({"completed", "failed", "agent_exit", "timeout"})
FINAL_STATUSES = JUDGED_STATUSES | {"error"}

ENV_RUNTIME = "GAIA2_RUNTIME"
ENV_SCENARIO_TIMEOUT = "GAIA2_SCENARIO_TIMEOUT"
# Simulated seconds per wall second for agents (1 to 100; the built-in oracle's clock is manual).
ENV_TIME_SPEED = "GAIA2_TIME_SPEED"
MIN_TIME_SPEED = 1.0
MAX_TIME_SPEED = 100.0
ENV_ADAPTER_PORT = "GAIA2_ADAPTER_PORT"
# A random secret per container: the runner sends it as `Authorization: Bearer <token>` on every
# adapter request, the daemon refuses requests without it and hides it from the agent.
ENV_ADAPTER_TOKEN = "GAIA2_ADAPTER_TOKEN"
ENV_NOISE = "GAIA2_NOISE"  # "1": ARE's noise mode (--noise)
# Tokens (input + output) the agent's model calls may use per scenario, counted by the model
# relay, which refuses calls past it (--max-tokens); unset: no budget.
ENV_TOKEN_BUDGET = "GAIA2_TOKEN_BUDGET"
AGENT_ENV_PREFIX = "GAIA2_AGENT_"
JUDGE_ENV_PREFIX = "GAIA2_JUDGE_"

# The container ends itself when its runner is gone (docs/container-contract.md, "Lifetime").
ENV_IDLE_TIMEOUT = "GAIA2_IDLE_TIMEOUT"
ENV_DEADLINE = "GAIA2_DEADLINE"
DEFAULT_IDLE_TIMEOUT_S = 60
DEFAULT_DEADLINE_GRACE_S = 600

# Files the daemon writes into OUTPUT_DIR (collected as they are).
EVENTS_FILE = "events.jsonl"
STATUS_FILE = "daemon_status.json"
AGENT_RESPONSE_FILE = "agent_response.txt"
TRACE_FILE = "trace.jsonl"
DAEMON_LOG_FILE = "daemon.log"
AGENT_LOG_FILE = "agent.log"
ARE_TRACE_FILE = "are_trace.json.gz"  # ARE's own trace dump of the run (its exporter, "hf" format), gzipped
REJUDGE_FILE = "rejudged.json"  # written by `entrypoint rejudge`: ARE's verdict from a saved trace

# Agent and judge settings (the judge's are stripped from the agent's environment).
ENV_AGENT_PROVIDER = AGENT_ENV_PREFIX + "PROVIDER"
ENV_AGENT_MODEL = AGENT_ENV_PREFIX + "MODEL"
ENV_AGENT_BASE_URL = AGENT_ENV_PREFIX + "BASE_URL"
ENV_AGENT_OPTIONS = AGENT_ENV_PREFIX + "OPTIONS"
ENV_AGENT_API_KEY = AGENT_ENV_PREFIX + "API_KEY"
# Set by the daemon for the agent: the provider its requests reach through the model relay.
ENV_AGENT_PUBLIC_BASE_URL = AGENT_ENV_PREFIX + "PUBLIC_BASE_URL"
RELAY_PORT = 8092  # the model relay, loopback only (daemon/relay.py)
ENV_JUDGE_PROVIDER = JUDGE_ENV_PREFIX + "PROVIDER"
ENV_JUDGE_MODEL = JUDGE_ENV_PREFIX + "MODEL"
ENV_JUDGE_BASE_URL = JUDGE_ENV_PREFIX + "BASE_URL"
ENV_JUDGE_API_KEY = JUDGE_ENV_PREFIX + "API_KEY"
