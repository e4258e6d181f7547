#!/usr/bin/env python3
"""ARE's default agent on the same scenarios twice, against one model server, compared request by
request: through ARE's own `are-benchmark run --agent default` (ARE's ScenarioRunner, in a container
of the runtime image) and through the runner (`gaia2-runner run-dataset --agent are-default`).

    PYTHONPATH=containers flock /tmp/gaia2-e2e.lock .venv/bin/python scripts/are_parity.py \\
        --model qwen --base-url http://127.0.0.1:8000/v1 [--scenarios a.json b.json]

Both sides reach the server through a recording proxy on this machine (scripts/are_parity_proxy.py),
one route per side, scenario and role (agent, judge), so every request and answer is kept per
scenario. `--base-url` is the server as this machine reaches it (`host.containers.internal` is read
as 127.0.0.1); the containers reach the proxy. Scenarios run one at a time, ARE's side first: a
one-slot server then still holds the first prompt when the runner sends it. The report
(scripts/are_parity_report.py) says per scenario whether the first requests are byte-identical,
how many request/answer pairs are identical before the conversations diverge and why, and both
verdicts. Exit 0 when both sides gave every scenario a verdict, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parents[1]

from are_parity_proxy import RecordingProxy, read_recording  # noqa: E402
from are_parity_report import Side, compare, model_calls, render  # noqa: E402
from gaia2_container.runtimes.are_default.settings import ARE_PROVIDER, KEY_VARIABLE, LITELLM_PREFIX  # noqa: E402
from gaia2_container.runtimes.harness.driver import NO_KEY  # noqa: E402
from gaia2_runner.config.endpoints import HOST_GATEWAY  # noqa: E402
from gaia2_runner.sandbox.images import RUNTIME_BASE_IMAGE  # noqa: E402
from gaia2_runner.sandbox.podman_driver import NETWORK_MODE, NETWORK_OPTIONS  # noqa: E402

ARE_CLI = "/opt/gaia2/venv/bin/are-benchmark"  # ARE's console script in the image's venv
CONFIG = "parity"  # the one config subdirectory `are-benchmark run --config` reads
VERDICTS = ("PASS", "FAIL")
SIDES = ("are", "runner")
RUNNER_EXIT = "runner exit code: "  # the last line of the runner side's log
ROLES = ("agent", "judge")
# ARE's own --scenario_timeout (a SIGALRM) does not end a run whose alarm lands in a model call: the
# OpenAI client under LiteLLM retries the interrupted request and the agent goes on (up to 80 steps).
# So ARE's container is stopped this long after --timeout: by default LiteLLM's 600 s request
# timeout, which ARE's engine keeps, and 120 s to start and judge.
ARE_GRACE_S = 720
DEFAULT_TIMEOUT_S = 900
ARE_RESULTS = "output.jsonl"  # MultiScenarioRunner's one line per run: score 1.0 = passed
ARE_LOG = "are-benchmark.log"
STOPPED = "are_parity: stopped after"  # the line the script adds to ARE's log when it stops the container


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="model name the server answers to")
    parser.add_argument(
        "--base-url", required=True, help="OpenAI-compatible base URL as this machine reaches it"
    )
    parser.add_argument("--api-key-env", help="variable holding the key (default: a keyless server)")
    parser.add_argument("--judge-model", help="judge model (default: --model)")
    parser.add_argument(
        "--judge-base-url", help="judge base URL as this machine reaches it (default: --base-url)"
    )
    parser.add_argument(
        "--scenarios", nargs="+", type=Path, default=sorted((REPO / "examples" / "scenarios").glob("*.json"))
    )
    parser.add_argument("--output-dir", type=Path, default=REPO / "out" / "are-parity")
    parser.add_argument(
        "--timeout", type=int, default=DEFAULT_TIMEOUT_S, help="seconds per scenario, both sides"
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="no runs: the report of the runs already in --output-dir (same --scenarios)",
    )
    parser.add_argument(
        "--are-grace",
        type=int,
        default=ARE_GRACE_S,
        help="seconds ARE's run gets beyond --timeout before its container is stopped (no verdict)",
    )
    args = parser.parse_args(argv)
    args.judge_model = args.judge_model or args.model
    args.base_url = host_side(args.base_url)
    args.judge_base_url = host_side(args.judge_base_url or args.base_url)
    missing = [str(p) for p in args.scenarios if not p.is_file()]
    if missing:
        parser.error(f"--scenarios: no such file: {', '.join(missing)}")
    if args.api_key_env and not os.environ.get(args.api_key_env):
        parser.error(f"--api-key-env: {args.api_key_env} is not set")
    for name in ("base_url", "judge_base_url"):
        if urlsplit(getattr(args, name)).scheme not in ("http", "https"):
            parser.error(f"--{name.replace('_', '-')}: {getattr(args, name)!r} is no http(s) URL")
    return args


def host_side(url: str) -> str:
    """The URL as this machine reaches it: the containers' name for the host is 127.0.0.1 here."""
    parts = urlsplit(url)
    if parts.hostname == HOST_GATEWAY:
        parts = parts._replace(netloc=parts.netloc.replace(HOST_GATEWAY, "127.0.0.1"))
    return urlunsplit(parts)


def stage(scenarios: list[Path], data: Path) -> dict[str, Path]:
    """One dataset directory per scenario, where both sides read it; {scenario_id: its directory}."""
    staged = {}
    for path in scenarios:
        scenario_id = json.loads(path.read_text(encoding="utf-8"))["metadata"]["definition"]["scenario_id"]
        (data / scenario_id / CONFIG).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, data / scenario_id / CONFIG / path.name)
        staged[scenario_id] = data / scenario_id
    return staged


def run_are(args: argparse.Namespace, data: Path, out: Path, agent_url: str, judge_url: str) -> None:
    """`are-benchmark run` with the default agent on one scenario, as gaia2-run configures it."""
    out.mkdir(parents=True, exist_ok=True)
    network = f"{NETWORK_MODE}:{','.join(NETWORK_OPTIONS.get(NETWORK_MODE, []))}".rstrip(":")
    name = f"gaia2-are-parity-{os.getpid()}-{data.name}"[:120]
    command = [
        "podman",
        "run",
        "--rm",
        "--name",
        name,
        "--network",
        network,
        "--entrypoint",
        ARE_CLI,
        "-e",
        KEY_VARIABLE,
        "-v",
        f"{data}:/data:ro",
        "-v",
        f"{out}:/out",
        RUNTIME_BASE_IMAGE,
        "run",
        "--dataset_path",
        "/data",
        "--config",
        CONFIG,
        "--agent",
        "default",
        "--model",
        LITELLM_PREFIX + args.model,
        "--provider",
        ARE_PROVIDER,
        "--endpoint",
        agent_url,
        "--judge_model",
        LITELLM_PREFIX + args.judge_model,
        "--judge_provider",
        ARE_PROVIDER,
        "--judge_endpoint",
        judge_url,
        "--num_runs",
        "1",
        "--max_concurrent_scenarios",
        "1",
        "--scenario_timeout",
        str(args.timeout),
        "--output_dir",
        "/out",
        "--trace_dump_format",
        "lite",
    ]
    key = os.environ.get(args.api_key_env) if args.api_key_env else NO_KEY
    limit = args.timeout + args.are_grace  # ARE_GRACE_S says why
    with (out / ARE_LOG).open("w") as log:
        try:
            subprocess.run(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, KEY_VARIABLE: key},
                timeout=limit,
            )
        except subprocess.TimeoutExpired:
            subprocess.run(["podman", "stop", "-t", "5", name], capture_output=True)
            log.write(f"\n{STOPPED} {limit} s\n")


def are_verdict(out: Path) -> tuple[str, str]:
    """(verdict, what else ARE said) from what its run left in `out`."""
    results = out / ARE_RESULTS
    for line in results.read_text(encoding="utf-8").splitlines() if results.is_file() else []:
        meta = json.loads(line).get("metadata") or {}
        # ARE scores a run that raised as a failure; ERROR shows it had no verdict of the judge.
        if meta.get("has_exception"):
            return "ERROR", str(meta.get("exception_type") or "an exception")
        return ("PASS" if json.loads(line).get("score") == 1.0 else "FAIL"), f"status {meta.get('status')}"
    log = out / ARE_LOG
    stopped = (
        [line for line in log.read_text(errors="replace").splitlines() if line.startswith(STOPPED)]
        if log.is_file()
        else []
    )
    return "-", (stopped[-1].removeprefix("are_parity: ") if stopped else f"no {ARE_RESULTS}")


def run_runner(args: argparse.Namespace, data: Path, out: Path, agent_url: str, judge_url: str) -> None:
    """The runner with `--agent are-default` on one scenario. No preflight: ARE sends no probe, and
    the conversation is the agent's alone."""
    keyed = (
        ["--api-key-env", args.api_key_env, "--judge-api-key-env", args.api_key_env]
        if args.api_key_env
        else []
    )
    command = [
        sys.executable,
        "-m",
        "gaia2_runner.cli",
        "run-dataset",
        "--dataset-root",
        str(data / CONFIG),
        "--agent",
        "are-default",
        "--model",
        args.model,
        "--base-url",
        agent_url,
        "--judge-provider",
        "openai-compat",
        "--judge-model",
        args.judge_model,
        "--judge-base-url",
        judge_url,
        *keyed,
        "--concurrency",
        "1",
        "--no-preflight",
        "--timeout",
        str(args.timeout),
        "--output-dir",
        str(out),
        "--overwrite",
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    with (out.parent / f"{out.name}.log").open("w") as log:
        proc = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
        log.write(f"{RUNNER_EXIT}{proc.returncode}\n")


def runner_verdict(out: Path) -> tuple[str, str]:
    """(verdict, the run's status) from the runner's results.jsonl."""
    results = out / "results.jsonl"
    for line in results.read_text(encoding="utf-8").splitlines() if results.is_file() else []:
        row = json.loads(line)
        success = row.get("success")
        return (
            "ERROR" if success is None else ("PASS" if success else "FAIL")
        ), f"status {row.get('status')}"
    return "-", "no results.jsonl"


def run_all(args: argparse.Namespace, root: Path, staged: dict[str, Path]) -> None:
    """Both sides on every scenario, through the proxy, which records into `root/recordings`."""
    upstream = {"agent": args.base_url, "judge": args.judge_base_url}
    routes = {
        f"{side}-{i}-{role}": upstream[role] for i in range(len(staged)) for side in SIDES for role in ROLES
    }
    proxy = RecordingProxy(routes, root / "recordings")
    proxy.start()
    try:
        for i, (scenario_id, data) in enumerate(staged.items()):
            for side, run in (("are", run_are), ("runner", run_runner)):
                print(f"[{i + 1}/{len(staged)}] {scenario_id}: {side}", file=sys.stderr, flush=True)
                agent, judge = (proxy.base_url(f"{side}-{i}-{role}", HOST_GATEWAY) for role in ROLES)
                run(args, data, root / side / scenario_id, agent, judge)
                if aborted := proxy.abort(f"{side}-{i}-"):
                    print(
                        f"  {aborted} request(s) still in flight aborted (llama-server cancels them)",
                        file=sys.stderr,
                        flush=True,
                    )
    finally:
        proxy.stop()


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    root = args.output_dir.resolve()
    if not args.report_only:
        for part in ("scenarios", "recordings"):
            shutil.rmtree(root / part, ignore_errors=True)
    staged = stage(args.scenarios, root / "scenarios")
    if not args.report_only:
        run_all(args, root, staged)
    comparisons = []
    for i, scenario_id in enumerate(staged):
        sides = {
            side: Side(
                *verdict(root / side / scenario_id),
                model_calls(read_recording(root / "recordings" / f"{side}-{i}-agent.jsonl")),
            )
            for side, verdict in (("are", are_verdict), ("runner", runner_verdict))
        }
        comparisons.append(compare(scenario_id, sides["are"], sides["runner"]))
    print(render(comparisons))
    print(
        f"recordings: {root / 'recordings'}\nlogs: {root / 'are'}/*/{ARE_LOG}, {root / 'runner'}/*.log",
        file=sys.stderr,
    )
    complete = all(c.are.verdict in VERDICTS and c.runner.verdict in VERDICTS for c in comparisons)
    return 0 if complete else 1


if __name__ == "__main__":
    raise SystemExit(main())
