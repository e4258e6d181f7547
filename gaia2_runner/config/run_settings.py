"""The `[run]` section of the settings table: how the job runs (times, container limits,
repetitions, budgets, output, engine and hosts). config/schema.py puts it after the other sections.
"""

from __future__ import annotations

from gaia2_contract.constants import MAX_TIME_SPEED, MIN_TIME_SPEED
from gaia2_runner.config import defaults as D
from gaia2_runner.config.engines import ENGINE_ENV
from gaia2_runner.config.environment import ENGINE_CHOICES, SWEEP_ENV, engine_from_env, sweep_from_env
from gaia2_runner.config.setting import Setting

RUN_SETTINGS: tuple[Setting, ...] = (
    Setting(
        "timeout",
        "run",
        "timeout",
        "float",
        f"Seconds per scenario (default: its duration + {D.DURATION_GRACE_S:g}).",
        minimum=0,
        maximum=D.MAX_TIMEOUT_S,
        unit="seconds",
    ),
    Setting(
        "health_timeout",
        "run",
        "health_timeout",
        "float",
        "Seconds to wait for a container's /health.",
        default=D.DEFAULT_HEALTH_TIMEOUT_S,
        minimum=0,
        maximum=D.MAX_HEALTH_TIMEOUT_S,
        unit="seconds",
    ),
    Setting(
        "concurrency",
        "run",
        "concurrency",
        "int",
        "Containers running at once.",
        default=D.default_concurrency,
        minimum=1,
        maximum=D.MAX_CONCURRENCY,
    ),
    Setting(
        "memory",
        "run",
        "memory",
        "str",
        f"RAM per scenario container, its files included (e.g. 8g, 1536m; default {D.DEFAULT_MEMORY}). An "
        "agent past it is stopped by the kernel and judged.",
        default=D.DEFAULT_MEMORY,
    ),
    Setting(
        "cpus",
        "run",
        "cpus",
        "float",
        f"CPU cores' worth of time per scenario container (default {D.DEFAULT_CPUS:g}).",
        default=D.DEFAULT_CPUS,
    ),
    Setting(
        "pids",
        "run",
        "pids",
        "int",
        f"Processes and threads per scenario container (default {D.DEFAULT_PIDS}).",
        default=D.DEFAULT_PIDS,
    ),
    Setting(
        "disk",
        "run",
        "disk",
        "str",
        f"Writable space of the agent in each of $HOME and /tmp, held in memory (default {D.DEFAULT_DISK}).",
        default=D.DEFAULT_DISK,
    ),
    Setting(
        "engine_wait",
        "run",
        "engine_wait",
        "float",
        "Seconds to wait for an unreachable engine API (podman or Docker) before runs give up (default "
        f"{D.DEFAULT_ENGINE_WAIT_S:g}; the old name podman_wait / --podman-wait works, with a warning, "
        "until the next release).",
        default=D.DEFAULT_ENGINE_WAIT_S,
        deprecated_key="podman_wait",
        deprecated_flag="--podman-wait",
        minimum=0,
        maximum=D.MAX_TIMEOUT_S,
        unit="seconds",
    ),
    Setting(
        "time_speed",
        "run",
        "time_speed",
        "float",
        f"Simulated seconds per wall second for agents ({MIN_TIME_SPEED:g} to {MAX_TIME_SPEED:g}, default "
        f"{D.DEFAULT_TIME_SPEED:g}: ARE's real time). The oracle never waits in real time, whatever this is.",
        default=D.DEFAULT_TIME_SPEED,
        minimum=MIN_TIME_SPEED,
        maximum=MAX_TIME_SPEED,
        unit="simulated seconds per wall second",
    ),
    Setting(
        "sim_generation_time",
        "run",
        "sim_generation_time",
        "str",
        "How simulated time treats the agent's model calls (every agent kind, ARE's default agent "
        "included: the runner's model relay holds the clock, never the agent), as ARE's gaia2-run "
        "(--simulated_generation_time_mode): measured (default): the clock holds while a call is in flight, "
        "then advances by its wall duration (overlapping calls: once, by the span of their union); "
        "fixed:N: advances N simulated seconds per call instead; off: the clock runs on during "
        "generation, at --time-speed. The judge's calls never count.",
        default=D.DEFAULT_SIM_GENERATION_TIME,
    ),
    Setting(
        "pass_at",
        "run",
        "pass_at",
        "int",
        "Runs per scenario (the k of pass@k), in run_1/ … run_k/.",
        default=D.DEFAULT_PASS_AT,
        minimum=1,
        maximum=D.MAX_PASS_AT,
    ),
    Setting(
        "max_tokens",
        "run",
        "max_tokens",
        "int",
        "Token budget per scenario: input + output tokens of the agent's model calls, counted by the "
        "model relay; past it further calls are refused and the run is judged on what it did (default: none).",
        minimum=1,
        maximum=D.MAX_TOKEN_BUDGET,
        unit="tokens per scenario",
    ),
    Setting(
        "cost_limit",
        "run",
        "cost_limit",
        "float",
        "USD for the whole job at the price table's rates: once the finished runs cost this much, no "
        "further scenario starts; what ran is kept (default: none).",
        minimum=0,
        unit="USD",
    ),
    Setting(
        "retry",
        "run",
        "retry",
        "bool",
        "Also rerun the runs that ended without a verdict (an infrastructure error: a start failure, a "
        "crash, no final status in time, a configuration fault) and those whose files an engine outage "
        "lost. Verdicts are kept, an agent's time-out included (it is judged).",
        default=False,
    ),
    Setting(
        "noise",
        "run",
        "noise",
        "bool",
        "ARE's noise mode: random tool failures, augmented tool names/descriptions, random ENV events.",
        default=False,
    ),
    Setting("output_dir", "run", "output_dir", "path", "Where results go.", panel="output"),
    Setting(
        "log_level",
        "run",
        "log_level",
        "str",
        "INFO, or DEBUG to log every scenario.",
        default=D.DEFAULT_LOG_LEVEL,
        choices=D.LOG_LEVELS,
        panel="output",
    ),
    Setting(
        "shard",
        "run",
        "shard",
        "shard",
        "Run only slice I of N (I/N, e.g. 2/8) of the planned scenarios; merge with `aggregate`.",
    ),
    # Not given: $GAIA2_SWEEP decides, else on (config/environment.py).
    Setting(
        "sweep",
        "run",
        "sweep",
        "bool",
        "Before the first container, remove containers of runners that are provably gone (default: on; "
        f"also {SWEEP_ENV}=0). --no-sweep turns it off.",
        default=sweep_from_env,
        flag_name="--no-sweep",
        env_var=SWEEP_ENV,
    ),
    Setting(
        "preflight",
        "run",
        "preflight",
        "bool",
        "Before the first scenario, send one tiny request to the agent's and the judge's model endpoints "
        "from a container (default: on; also with --dry-run). --no-preflight skips it, for endpoints "
        "slow to wake up.",
        flag_name="--no-preflight",
        default=True,
    ),
    Setting(
        "warm_pool",
        "run",
        "warm_pool",
        "bool",
        "Start each slot's next container while the current run goes, its imports done, and give it "
        "exactly one scenario (never reused): ready in ~0.3 s instead of ~0.8 s (default: on). "
        "--no-warm-pool starts every container when its run starts.",
        flag_name="--no-warm-pool",
        default=True,
    ),
    # Not given: $GAIA2_ENGINE decides, else auto (config/environment.py).
    Setting(
        "engine",
        "run",
        "engine",
        "str",
        "Container engine: podman, docker, or auto (default; also $GAIA2_ENGINE): a --host's own, else "
        "CONTAINER_HOST means podman and DOCKER_HOST docker, else whichever answers on its usual "
        "socket (podman when both do; a private podman service when none does).",
        default=engine_from_env,
        choices=ENGINE_CHOICES,
        noun="engine",
        env_var=ENGINE_ENV,
    ),
    Setting(
        "hosts",
        "run",
        "hosts",
        "hosts",
        "Engine API URL (podman or Docker) to run on (repeatable; URL=N gives it N slots, default: concurrency each).",
        flag_name="--host",
    ),
)
