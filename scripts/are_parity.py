#!/usr/bin/env python3
"""ARE's default agent on the same scenarios twice, against the same model server: through ARE's own
`are-benchmark run` (ARE's ScenarioRunner, in a container of the runtime image) and through the
runner (`gaia2-runner run-dataset --agent are-default`); prints the two verdict sets side by side.

    PYTHONPATH=containers flock /tmp/gaia2-e2e.lock .venv/bin/python scripts/are_parity.py \\
        --model qwen --base-url http://host.containers.internal:8000/v1 [--scenarios a.json b.json]

The base URL is the server as containers see it (both sides run in containers). docs/reference/are-default-agent.md
says what a difference means. Exit 0 when both sides gave every scenario a verdict, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

from gaia2_container.runtimes.are_default.settings import ARE_PROVIDER, KEY_VARIABLE, LITELLM_PREFIX  # noqa: E402
from gaia2_container.runtimes.harness.driver import NO_KEY  # noqa: E402
from gaia2_runner.sandbox.images import RUNTIME_BASE_IMAGE  # noqa: E402
from gaia2_runner.sandbox.podman_driver import NETWORK_MODE, NETWORK_OPTIONS  # noqa: E402

ARE_CLI = "/opt/gaia2/venv/bin/are-benchmark"  # ARE's console script in the image's venv
CONFIG = "parity"  # the one config subdirectory `are-benchmark run --config` reads
VERDICTS = ("PASS", "FAIL")
LITELLM_CALL_LIMIT_S = 600  # LiteLLM's default request timeout, which ARE's engine keeps
START_MARGIN_S = 120
DEFAULT_TIMEOUT_S = 900
ARE_RESULTS = "output.jsonl"  # MultiScenarioRunner's one line per run: score 1.0 = passed


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="model name the server answers to")
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible base URL as containers see it (with /v1)")
    parser.add_argument("--api-key-env", help="variable holding the key (default: a keyless server)")
    parser.add_argument("--judge-model", help="judge model (default: --model)")
    parser.add_argument("--judge-base-url", help="judge base URL (default: --base-url)")
    parser.add_argument("--scenarios", nargs="+", type=Path,
                        default=sorted((REPO / "examples" / "scenarios").glob("*.json")))
    parser.add_argument("--output-dir", type=Path, default=REPO / "out" / "are-parity")
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT_S, help="seconds per scenario, both sides")
    args = parser.parse_args(argv)
    args.judge_model = args.judge_model or args.model
    args.judge_base_url = args.judge_base_url or args.base_url
    missing = [str(p) for p in args.scenarios if not p.is_file()]
    if missing:
        parser.error(f"--scenarios: no such file: {', '.join(missing)}")
    if args.api_key_env and not os.environ.get(args.api_key_env):
        parser.error(f"--api-key-env: {args.api_key_env} is not set")
    return args


def stage(scenarios: list[Path], data: Path) -> dict[str, str]:
    """Copy the scenarios where both sides read them; {scenario_id: file name}."""
    (data / CONFIG).mkdir(parents=True, exist_ok=True)
    ids = {}
    for path in scenarios:
        shutil.copyfile(path, data / CONFIG / path.name)
        ids[json.loads(path.read_text(encoding="utf-8"))["metadata"]["definition"]["scenario_id"]] = path.name
    return ids


def run_are(args: argparse.Namespace, data: Path, out: Path) -> dict[str, str]:
    """`are-benchmark run` with the default agent, as gaia2-run configures it; {scenario_id: verdict}."""
    out.mkdir(parents=True, exist_ok=True)
    network = f"{NETWORK_MODE}:{','.join(NETWORK_OPTIONS.get(NETWORK_MODE, []))}".rstrip(":")
    name = f"gaia2-are-parity-{os.getpid()}"
    command = ["podman", "run", "--rm", "--name", name, "--network", network, "--entrypoint", ARE_CLI, "-e", KEY_VARIABLE,
               "-v", f"{data}:/data:ro", "-v", f"{out}:/out", RUNTIME_BASE_IMAGE,
               "run", "--dataset_path", "/data", "--config", CONFIG, "--agent", "default",
               "--model", LITELLM_PREFIX + args.model, "--provider", ARE_PROVIDER, "--endpoint", args.base_url,
               "--judge_model", LITELLM_PREFIX + args.judge_model, "--judge_provider", ARE_PROVIDER,
               "--judge_endpoint", args.judge_base_url, "--num_runs", "1", "--max_concurrent_scenarios", "1",
               "--scenario_timeout", str(args.timeout), "--output_dir", "/out", "--trace_dump_format", "lite"]
    key = os.environ.get(args.api_key_env) if args.api_key_env else NO_KEY
    # ARE's --scenario_timeout does not interrupt a model call in flight (LiteLLM waits up to 600 s
    # per call): the whole run gets the time of its scenarios plus that much, then it is stopped.
    limit = (args.timeout + LITELLM_CALL_LIMIT_S) * len(list((data / CONFIG).glob("*.json"))) + START_MARGIN_S
    with (out / "are-benchmark.log").open("w") as log:
        try:
            subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, KEY_VARIABLE: key},
                           timeout=limit)
        except subprocess.TimeoutExpired:
            subprocess.run(["podman", "stop", "-t", "5", name], capture_output=True)
            log.write(f"\nare_parity: stopped after {limit} s\n")
    verdicts = {}
    results = out / ARE_RESULTS
    for line in results.read_text(encoding="utf-8").splitlines() if results.is_file() else []:
        row = json.loads(line)
        meta = row.get("metadata") or {}
        # ARE scores a run that raised as a failure; ERROR shows it had no verdict of the judge.
        verdict = "ERROR" if meta.get("has_exception") else ("PASS" if row.get("score") == 1.0 else "FAIL")
        verdicts[meta.get("scenario_id") or row.get("task_id")] = verdict
    return verdicts


def run_runner(args: argparse.Namespace, data: Path, out: Path) -> dict[str, str]:
    """The runner with `--agent are-default`; {scenario_id: verdict} (ERROR: no verdict)."""
    keyed = ["--api-key-env", args.api_key_env, "--judge-api-key-env", args.api_key_env] if args.api_key_env else []
    command = [sys.executable, "-m", "gaia2_runner.cli", "run-dataset", "--dataset-root", str(data / CONFIG),
               "--agent", "are-default", "--model", args.model, "--base-url", args.base_url,
               "--judge-provider", "openai-compat", "--judge-model", args.judge_model,
               "--judge-base-url", args.judge_base_url, *keyed, "--concurrency", "1",
               "--timeout", str(args.timeout), "--output-dir", str(out), "--overwrite"]
    out.parent.mkdir(parents=True, exist_ok=True)
    with (out.parent / "runner.log").open("w") as log:
        subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
    verdicts = {}
    results = out / "results.jsonl"
    for line in results.read_text(encoding="utf-8").splitlines() if results.is_file() else []:
        row = json.loads(line)
        success = row.get("success")
        verdicts[row["scenario_id"]] = "ERROR" if success is None else ("PASS" if success else "FAIL")
    return verdicts


def report(ids: dict[str, str], are: dict[str, str], runner: dict[str, str]) -> bool:
    """The side-by-side table; True when every scenario has a verdict on both sides."""
    width = max(len(i) for i in ids)
    print(f"{'scenario':<{width}}  {'are-benchmark':<13}  {'runner':<7}  same")
    for scenario_id in sorted(ids):
        a, r = are.get(scenario_id, "-"), runner.get(scenario_id, "-")
        print(f"{scenario_id:<{width}}  {a:<13}  {r:<7}  {'yes' if a == r else 'NO'}")
    same = sum(are.get(i) == runner.get(i) for i in ids)
    print(f"{same}/{len(ids)} verdicts agree; pass: are-benchmark {list(are.values()).count('PASS')}, "
          f"runner {list(runner.values()).count('PASS')}")
    return all(are.get(i) in VERDICTS and runner.get(i) in VERDICTS for i in ids)


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    root = args.output_dir.resolve()
    data = root / "scenarios"
    shutil.rmtree(data, ignore_errors=True)
    ids = stage(args.scenarios, data)
    are = run_are(args, data, root / "are-benchmark")
    runner = run_runner(args, data, root / "runner" / "out")
    complete = report(ids, are, runner)
    print(f"logs: {root / 'are-benchmark' / 'are-benchmark.log'}, {root / 'runner' / 'runner.log'}")
    return 0 if complete else 1


if __name__ == "__main__":
    raise SystemExit(main())
