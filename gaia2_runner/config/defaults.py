"""Every default of the runner as a named constant, and the bounds of the settings, in one place.

Settings (config/schema.py) take their defaults and bounds from here, and so does every module
that needs the same number (a `run_scenario` called without a config, `check-image`, the plan's
view): a default is changed here and nowhere else. tests/unit/test_one_owner_defaults.py fails on
a second literal of a default timeout in the source.
"""

from __future__ import annotations

import os

from gaia2_contract import constants as contract
from gaia2_contract import generation_time

# --- times (seconds) ---------------------------------------------------------------------------
DEFAULT_HEALTH_TIMEOUT_S = 60.0  # a container's /health: ARE loads the scenario's apps first
DEFAULT_ENGINE_WAIT_S = 300.0  # an unreachable engine API is waited for this long before runs give up
DURATION_GRACE_S = 120.0  # the default run timeout is the scenario's duration plus this: agents think
UNKNOWN_DURATION_TIMEOUT_S = 600.0  # the run timeout of a scenario that states no duration
CHECK_IMAGE_TIMEOUT_S = 180.0  # `check-image`: its scenario's final status is waited for this long

# A scenario container's lifetime around the run timeout (execution/scenario_run.py, container_env.py).
RUNNER_GRACE_S = 15.0  # the daemon enforces the timeout; the runner waits this much longer
JUDGING_GRACE_S = 300.0  # ... or this much while the daemon judges (the judge may call an LLM)
COLLECT_GRACE_S = 60.0  # the container's hard deadline leaves the runner this long after its own
STATUS_POLL_S = 0.5  # the daemon's watchdog takes a silence of GAIA2_IDLE_TIMEOUT for a dead runner
# The first status poll comes this soon after the start, each next one twice as late up to
# STATUS_POLL_S: a quick run (the oracle's ends in a tenth of a second) is seen done at once, not
# half a second later; a long one is polled as before.
STATUS_POLL_FIRST_S = 0.05
# /health is asked this often while a container gets ready: a ready daemon is seen within 50 ms
# (at 0.2 s a scenario waited 0.1 s on average for nothing; a refused connect costs microseconds).
HEALTH_POLL_S = 0.05
ALIVE_CHECK_S = 2.0  # while the daemon answers, podman is asked whether the container runs this often
MIN_IDLE_TIMEOUT_S = 2.0  # well above STATUS_POLL_S, so a live runner is never taken for gone

# --- the simulated clock: ARE's real time, the daemon's default too (so it is never sent) ---------
DEFAULT_TIME_SPEED = contract.DEFAULT_TIME_SPEED
# How the clock treats the agent's model calls: ARE's gaia2-run default (measured), also the daemon's
# without the variable; "off" is the runner's behaviour before the setting existed.
DEFAULT_SIM_GENERATION_TIME = generation_time.DEFAULT_SIM_GENERATION_TIME

# --- the job ---------------------------------------------------------------------------------------
DEFAULT_PASS_AT = 1
DEFAULT_CONCURRENCY_CAP = 8  # the computed default never exceeds this (each container needs ~1 core to load)
DEFAULT_LOG_LEVEL = "INFO"
# `leaderboard`: ARE's gaia2-run makes every phase run each scenario this many times, on this split.
LEADERBOARD_RUNS = 3
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
# --split of a dataset in the original hub layout: the one the hub publishes with oracle events, which
# the leaderboard runs and its rows go in
DEFAULT_HUB_SPLIT = "validation"


def default_concurrency() -> int:
    """One container per core, at least 1, at most 8 (each container needs ~1 core to load)."""
    return max(1, min(DEFAULT_CONCURRENCY_CAP, os.cpu_count() or 1))


# --- what a scenario container may use (config/limits.py parses and checks them) -------------------
DEFAULT_MEMORY = "4g"  # RAM of the whole container (daemon + agent + its files), no swap
DEFAULT_CPUS = 2.0  # CPU time: at most this many cores' worth (a CFS quota)
DEFAULT_PIDS = 1024  # processes and threads of the whole container
DEFAULT_DISK = "1g"  # each of the agent's writable places: its $HOME and /tmp

# --- bounds of the settings (config/schema.py declares which setting has which) --------------------
MAX_PASS_AT = 100  # k of pass@k; ARE reports k = 3
MAX_CONCURRENCY = 256  # also the most slots one podman host may have
MAX_TIMEOUT_S = 7 * 86400.0  # timeout and engine_wait
MAX_HEALTH_TIMEOUT_S = 3600.0
MAX_SHARDS = 10_000
MAX_TOKEN_BUDGET = 10**10

# --- image names ---------------------------------------------------------------------------------
# The one owner of the runner's image names in Python. Deliberate exception: the Containerfiles'
# `ARG RUNTIME_BASE=… / HARNESS_BASE=… / FROM_IMAGE=… / BASE_IMAGE=…` lines repeat these names as
# fallbacks for a bare `podman build`; the runner always passes them as build args
# (sandbox/images.py image_specs), so the ones here are the ones used.
IMAGE_PREFIX = "localhost/gaia2-"
IMAGE_TAG = "latest"


def image_name(name: str) -> str:
    """oracle -> localhost/gaia2-oracle:latest (every image of ours, harnesses' included)."""
    return f"{IMAGE_PREFIX}{name}:{IMAGE_TAG}"


ORACLE_IMAGE = image_name("oracle")
AGENT_IMAGE = image_name("agent")  # the built-in LLM loop and ARE's default agent
RUNTIME_DEPS_IMAGE = image_name("runtime-deps")  # Python, ARE, the agent user: no code of ours
RUNTIME_BASE_IMAGE = image_name("runtime-base")  # the deps + our container code
NODE_IMAGE = image_name("runtime-node")  # the deps + Node.js, for npm harnesses
DEFAULT_BASE_IMAGE = "python:3.12-slim"  # what the deps image starts FROM (GAIA2_BASE_IMAGE overrides)
