"""The runner <-> container contract's fixed values (docs/reference/container-contract.md).

Plain values only: the container resolves its own places from the environment (overrides for tests
and custom images) in gaia2_container/places.py.
"""

from __future__ import annotations

ADAPTER_PORT = 8090  # the runner-facing adapter API
TOOLS_PORT = 8091  # the agent-facing tool API, loopback only
TOOLS_HOST = "127.0.0.1"
RELAY_PORT = 8092  # the model relay, loopback only (daemon/relay.py)
A2A_RELAY_PORT = 8093  # the expert sub-agents' model relay (Agent2Agent), loopback only (daemon/a2a_relay.py)

INPUT_DIR = "/gaia2/input"  # root only: the scenario holds the answers
OUTPUT_DIR = "/gaia2/output"  # what the runner collects after a final status
AGENT_DIR = "/gaia2/agent"  # the agent user's $HOME (a tmpfs of the run's disk size)
BIN_DIR = "/gaia2/bin"  # one shell command per app (written by the daemon at start), on the agent's PATH

SCENARIO_FILE_NAME = "scenario.json"  # in INPUT_DIR
# The Files app's data (a copy of the hub dataset gaia2_filesystem: demo_filesystem/...), mounted
# read-only by the runner inside INPUT_DIR (--filesystem-dir), so the agent user cannot browse it.
FILESYSTEM_DIR = "/gaia2/input/filesystem"
# Where the runner copies $GAIA2_CA_BUNDLE (and points SSL_CERT_FILE & co.); the daemon never reads it.
CA_BUNDLE_PATH = "/gaia2/ca/ca-bundle.pem"  # its own directory: Docker copies files in only into volumes
# The host's proxy settings: passed on to the daemon (the relay and the judge reach providers through
# them), never to the agent (it reaches nothing but 127.0.0.1, and a proxy URL may hold a password).
PROXY_VARS = ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")

# Statuses /status reports as final: once one is published, every output file is complete.
# Judged (a verdict in `judgment`): completed (every turn, or ARE's clock ran out), failed (a turn
# before the last was rejected), agent_exit (the agent stopped, whatever its exit code), timeout (the
# agent was still working when its time was up). No verdict: error (an infrastructure failure).
JUDGED_STATUSES = frozenset({"completed", "failed", "agent_exit", "timeout"})
FINAL_STATUSES = JUDGED_STATUSES | {"error"}
# The endpoints the preflight check reports on (its result's keys): the agent's, the judge's and
# Agent2Agent's expert agents' (gaia2_container/preflight.py writes, execution/preflight.py words them).
PREFLIGHT_TARGETS = ("agent", "judge", "experts")
# events.jsonl kind of an expert sub-agent's model call (Agent2Agent): a trace.jsonl entry's fields.
SUB_AGENT_CALL_KIND = "llm_call"
# The error of a run whose scenario holds no oracle events (as the hub's test split): ARE's judge
# returns no verdict and no exception, which ARE's report counts as `no_validation`, not `exception`.
NO_ORACLE_EVENTS_ERROR = "scenario has no oracle events: nothing to judge it against"

ENV_RUNTIME = "GAIA2_RUNTIME"  # oracle | agent | none (or a harness's runtime)
ENV_SCENARIO_TIMEOUT = "GAIA2_SCENARIO_TIMEOUT"  # seconds
# Simulated seconds per wall second for agents (1 to 100; the built-in oracle's clock is manual).
ENV_TIME_SPEED = "GAIA2_TIME_SPEED"
MIN_TIME_SPEED = 1.0
MAX_TIME_SPEED = 100.0
DEFAULT_TIME_SPEED = 1.0  # ARE's real time: the daemon's without the variable, so the runner never sends it
# "1": the built-in oracle waits in ARE's real time as an agent would, instead of moving the clock
# itself (tests that need a scenario to stay running a while; comparisons with real-time pacing).
ENV_ORACLE_REALTIME = "GAIA2_ORACLE_REALTIME"
# How the clock treats the agent's model calls: measured | off | fixed:N (generation_time.py);
# unset: measured, as ARE's gaia2-run.
ENV_SIM_GENERATION_TIME = "GAIA2_SIM_GENERATION_TIME"
ENV_ADAPTER_PORT = "GAIA2_ADAPTER_PORT"
# A random secret per container: the runner sends it as `Authorization: Bearer <token>` on every
# adapter request, the daemon refuses requests without it and hides it from the agent.
ENV_ADAPTER_TOKEN = "GAIA2_ADAPTER_TOKEN"
ENV_AGENT_COMMAND = "GAIA2_AGENT_COMMAND"  # overrides the built-in runtime
ENV_NOISE = "GAIA2_NOISE"  # "1": ARE's noise mode (tool augmentation + random ENV events), as --noise
# Tokens (input + output) the agent's model calls may use per scenario, counted by the model
# relay, which refuses calls past it (--max-tokens); unset: no budget.
ENV_TOKEN_BUDGET = "GAIA2_TOKEN_BUDGET"
ENV_TOOLS_URL = "GAIA2_TOOLS_URL"  # set by the daemon in the agent's environment

# Agent and judge settings, forwarded by the runner (the judge's are stripped from the agent's
# environment).
AGENT_ENV_PREFIX = "GAIA2_AGENT_"
JUDGE_ENV_PREFIX = "GAIA2_JUDGE_"
ENV_AGENT_PROVIDER = AGENT_ENV_PREFIX + "PROVIDER"
ENV_AGENT_MODEL = AGENT_ENV_PREFIX + "MODEL"
ENV_AGENT_BASE_URL = AGENT_ENV_PREFIX + "BASE_URL"
ENV_AGENT_OPTIONS = AGENT_ENV_PREFIX + "OPTIONS"
ENV_AGENT_API_KEY = AGENT_ENV_PREFIX + "API_KEY"
# Set by the daemon for the agent: the provider its requests reach through the model relay.
ENV_AGENT_PUBLIC_BASE_URL = AGENT_ENV_PREFIX + "PUBLIC_BASE_URL"
ENV_JUDGE_PROVIDER = JUDGE_ENV_PREFIX + "PROVIDER"
ENV_JUDGE_MODEL = JUDGE_ENV_PREFIX + "MODEL"
ENV_JUDGE_BASE_URL = JUDGE_ENV_PREFIX + "BASE_URL"
ENV_JUDGE_API_KEY = JUDGE_ENV_PREFIX + "API_KEY"
# Agent2Agent (ARE's --a2a_app_prop): this fraction of the scenario's apps become expert agents
# (ARE's AppAgent, in the daemon) whose own model is the A2A_* one (default: the agent's). The
# agent never sees any of these variables: its sub-agents' key stays in the daemon.
A2A_ENV_PREFIX = "GAIA2_A2A_"
ENV_A2A_APP_PROP = A2A_ENV_PREFIX + "APP_PROP"
ENV_A2A_PROVIDER = A2A_ENV_PREFIX + "PROVIDER"
ENV_A2A_MODEL = A2A_ENV_PREFIX + "MODEL"
ENV_A2A_BASE_URL = A2A_ENV_PREFIX + "BASE_URL"
ENV_A2A_API_KEY = A2A_ENV_PREFIX + "API_KEY"

# Lifetime: the container ends itself when its runner is gone, so a runner killed with -9 leaves no
# container running. "Gone" means no adapter request carrying the adapter token (ENV_ADAPTER_TOKEN)
# for GAIA2_IDLE_TIMEOUT seconds (0: never); GAIA2_DEADLINE is the hard limit in seconds after the
# daemon starts (default: GAIA2_SCENARIO_TIMEOUT + DEFAULT_DEADLINE_GRACE_S). The agent never holds
# the token, so it cannot keep an abandoned container alive.
ENV_IDLE_TIMEOUT = "GAIA2_IDLE_TIMEOUT"
ENV_DEADLINE = "GAIA2_DEADLINE"
DEFAULT_IDLE_TIMEOUT_S = 60
DEFAULT_DEADLINE_GRACE_S = 600

# A warm container (the runner's single-use pool, gaia2_runner/sandbox/warm_pool.py) is started
# before its scenario is known: with GAIA2_WARM=1 the daemon does its imports, then waits for
# POST routes.ASSIGN, which brings the variables that depend on the scenario (ASSIGNED_ENV: its
# time limit and the deadline that follows from it). Its deadline counts from the assignment; until
# then only the idle timeout applies (the runner asks /health of its spares to keep them).
ENV_WARM = "GAIA2_WARM"
ASSIGNED_ENV = (ENV_SCENARIO_TIMEOUT, ENV_DEADLINE)

# Files the daemon writes into OUTPUT_DIR (the runner collects them as they are).
EVENTS_FILE = "events.jsonl"
STATUS_FILE = "daemon_status.json"
AGENT_RESPONSE_FILE = "agent_response.txt"
# optional: the model relay's record, or copied from the agent's $HOME (built-in LLM runtime)
TRACE_FILE = "trace.jsonl"
DAEMON_LOG_FILE = "daemon.log"
AGENT_LOG_FILE = "agent.log"
ARE_TRACE_FILE = "are_trace.json.gz"  # ARE's own trace dump of the run (its exporter, "hf" format), gzipped
REJUDGE_FILE = "rejudged.json"  # written by `entrypoint rejudge`: ARE's verdict from a saved trace
OUTPUT_FILES = (
    EVENTS_FILE,
    STATUS_FILE,
    AGENT_RESPONSE_FILE,
    TRACE_FILE,
    DAEMON_LOG_FILE,
    AGENT_LOG_FILE,
    ARE_TRACE_FILE,
)

# Written by a runtime into its $HOME (AGENT_DIR), not OUTPUT_DIR: one line saying why it gave up,
# which the daemon appends to the error of the run.
AGENT_ERROR_FILE = "agent_error.txt"
# Also in $HOME: one line the daemon adds, as "agent note: ...", to the note of a judged run (e.g. the
# built-in LLM agent's "the model never produced a parsable tool call"); never a verdict or an error.
AGENT_NOTE_FILE = "agent_note.txt"
