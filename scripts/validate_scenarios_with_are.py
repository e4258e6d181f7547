#!/usr/bin/env python3
"""Check Gaia2 scenario JSON files with Meta's ARE itself.

Usage (with the Python that has ``meta-agents-research-environments==1.2.0``)::

    /tmp/arevenv/bin/python scripts/validate_scenarios_with_are.py DIR [--skip-cli] [-v]
        [--filesystem-dir FS_DIR]

(the runtime image's /opt/gaia2/venv/bin/python has it). Scenarios with a ``Files`` app
(SandboxLocalFileSystem) read file bytes from ``FS_DIR`` (ARE's ``DEMO_FS_PATH``); it defaults to
``DIR/gaia2_filesystem/demo_filesystem`` when that exists (make_gaia2_corpus.py writes it there).

Prints one line per ``*.json`` file in DIR and a summary line; exits 1 if
any scenario fails any check.

ARE is the referee, through both of its entry points:

(a) ``are-benchmark run --oracle --provider mock --model mock`` (the CLI
    replays the oracle events; no model is called). The CLI only reads a
    dataset as ``<dir>/<config>/*.json``, so the files are copied into a
    temporary ``<tmp>/demo/`` and run with ``--config demo --num_runs 1
    --max_concurrent_scenarios 1 --output_dir <tmp>/out``. A scenario passes
    (a) when it appears in the CLI's ``output.jsonl`` with status ``success``
    and its exported trace has no completed event carrying an exception. With ARE 1.2.0 the CLI accepts
    the demo files of examples/scenarios (all of them load and replay with
    status success). But in oracle mode the CLI does not run the judge: it
    only checks that the environment did not fail. That is why (b) is also
    needed.

(b) ARE's Python API, which is the stricter check:
    1. ``JsonScenarioImporter().import_from_json_to_benchmark(...)``; every
       app in the file must be instantiated (ARE only logs an app whose state
       fails to load, so the validator compares app names);
    2. ``preprocess_scenario(...)`` with a ``GraphPerEventJudgeConfig`` whose
       ``engine`` raises when called. This builds the events graph (ARE's
       own DAG rules, e.g. "Env events must have only one predecessor
       event"), runs the oracle in ARE's ``Environment`` in oracle mode
       (fails if any oracle event raised), attaches the oracle log and
       splits the scenario into turns;
    3. the ``GraphPerEventJudge`` built by ``preprocess_scenario`` (state
       re-initialised) judges the oracle's own completed events, turn by
       turn (``validate_current_turn`` once per turn). Every turn must be
       accepted, and the LLM engine must never be called:
       identical arguments short-cut the judge's soft (LLM) checks;
    4. "broken oracle": the same log without one oracle AGENT write action
       (other than ``send_message_to_user``) must be REJECTED by the judge
       (state re-initialised again; without calling the LLM engine either).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

CLI_CONFIG = "demo"


class EngineCalled(RuntimeError):
    pass


class ForbiddenEngine:
    """Stands in for the judge's LLM: counts calls and raises."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        raise EngineCalled("LLM judge engine was called; exact replay should not need it")


@dataclass
class Result:
    scenario_id: str
    path: Path
    api_ok: bool = False
    api_notes: list[str] = field(default_factory=list)
    cli_status: str = "not run"
    cli_ok: bool | None = None

    @property
    def ok(self) -> bool:
        return self.api_ok and self.cli_ok is not False


def use_speedups() -> None:
    """In the runtime image: the daemon's output-preserving cache of ARE's judge templates."""
    try:
        from gaia2_container.daemon import are_speedups
    except ImportError:
        return
    are_speedups.install()


# --------------------------------------------------------------------------
# (b) Python API
# --------------------------------------------------------------------------


class _Log:
    def __init__(self, events):
        self._events = events

    def list_view(self):
        return list(self._events)


class _Clock:
    def __init__(self, t: float):
        self._t = t

    def time(self) -> float:
        return self._t


class ReplayEnv:
    """The bits of an Environment the judge reads: the event log and a clock."""

    def __init__(self, events, now: float):
        self.event_log = _Log(events)
        self.time_manager = _Clock(now)


def judge_log(scenario, events) -> tuple[list[bool], list[str], int]:
    """Judge `events` as if an agent had produced them; returns per-turn verdicts.

    Reuses the GraphPerEventJudge that preprocess_scenario attached to the
    scenario (building one compiles many prompt templates and is slow);
    ``initialize_state`` gives it a fresh state for every log judged.
    """
    judge = scenario.judge
    engine = judge.config.engine
    calls_before = engine.calls
    judge.initialize_state(scenario)
    env = ReplayEnv(list(events), now=max(e.event_time or 0 for e in events))
    verdicts, rationales = [], []
    for _ in range(scenario.nb_turns):
        res = judge.validate_current_turn(env)
        verdicts.append(bool(res.success))
        rationales.append(str(res.rationale))
        if not res.success:
            break
    return verdicts, rationales, engine.calls - calls_before


def check_api(res: Result, text: str) -> None:
    from are.simulation.apps import ALL_APPS
    from are.simulation.data_handler.importer import JsonScenarioImporter
    from are.simulation.scenarios.scenario_imported_from_json.utils import (
        preprocess_scenario,
    )
    from are.simulation.scenarios.utils.turn_conditions import is_send_message_to_user
    from are.simulation.types import EventType, OperationType
    from are.simulation.validation.configs import GraphPerEventJudgeConfig

    notes = res.api_notes
    raw = json.loads(text)
    known = {cls.__name__ for cls in ALL_APPS}
    unknown = sorted({a.get("class_name") or a.get("name") for a in raw.get("apps", [])} - known)
    if unknown:
        notes.append(f"apps not in ARE ALL_APPS: {', '.join(unknown)}")
        return

    scenario, _, _ = JsonScenarioImporter().import_from_json_to_benchmark(text, load_completed_events=False)
    res.scenario_id = scenario.scenario_id
    engine = ForbiddenEngine()
    preprocess_scenario(scenario, judge_config=GraphPerEventJudgeConfig(engine=engine))
    expected_apps = {a["name"] for a in raw.get("apps", [])} | {"SystemApp"}
    loaded_apps = {app.name for app in scenario.apps or []}
    if expected_apps - loaded_apps:
        notes.append(f"apps failed to load: {sorted(expected_apps - loaded_apps)}")
        return
    log = scenario.oracle_run_event_log or []
    if engine.calls:
        notes.append("LLM engine called during preprocessing")
        return
    notes.append(f"oracle run ok ({len(log)} events, {scenario.nb_turns} turn(s))")

    # Every turn must end with send_message_to_user.
    ends = [e for e in scenario.events if is_send_message_to_user(e)]
    if len(ends) != scenario.nb_turns:
        notes.append(f"{len(ends)} send_message_to_user for {scenario.nb_turns} turns")
        return

    verdicts, rationales, calls = judge_log(scenario, log)
    if calls or len(verdicts) != scenario.nb_turns or not all(verdicts):
        notes.append(
            f"judge REJECTED the oracle's own log (turns {verdicts}, llm calls {calls}): "
            f"{rationales[-1] if rationales else ''}"
        )
        return
    notes.append(f"judge accepts oracle log ({len(verdicts)}/{scenario.nb_turns} turns, 0 LLM calls)")

    # Broken oracle: drop one AGENT write action that is not the turn-ending message.
    candidates = [
        e
        for e in log
        if e.event_type == EventType.AGENT
        and e.action is not None
        and e.action.operation_type == OperationType.WRITE
        and not (
            e.action.class_name == "AgentUserInterface" and e.action.function_name == "send_message_to_user"
        )
    ]
    if not candidates:
        notes.append("broken-oracle check n/a (no write action besides messages to user)")
        res.api_ok = True
        return
    dropped = candidates[-1]
    broken = [e for e in log if e is not dropped]
    verdicts, rationales, calls = judge_log(scenario, broken)
    tool = f"{dropped.action.class_name}.{dropped.action.function_name}"
    if all(verdicts) and len(verdicts) == scenario.nb_turns:
        notes.append(f"broken oracle (without {tool}) was ACCEPTED")
        return
    if calls or rationales[-1] == "Exception":
        notes.append(f"broken oracle (without {tool}) rejected only via an error/LLM call")
        return
    reason = (
        " ".join(line.strip() for line in rationales[-1].splitlines() if line.strip().startswith("- "))
        or rationales[-1].splitlines()[0][:80]
    )
    notes.append(f"broken oracle (without {tool}) rejected ({reason})")
    res.api_ok = True


# --------------------------------------------------------------------------
# (a) are-benchmark CLI
# --------------------------------------------------------------------------


def find_cli(explicit: str | None) -> str | None:
    if explicit:
        return explicit
    beside = Path(sys.executable).parent / "are-benchmark"
    if beside.exists():
        return str(beside)
    return shutil.which("are-benchmark")


def run_cli(cli: str, files: list[Path], results: dict[str, Result], timeout: int, verbose: bool) -> str:
    with tempfile.TemporaryDirectory(prefix="are_cli_check_") as tmp:
        data_dir = Path(tmp) / "data" / CLI_CONFIG
        out_dir = Path(tmp) / "out"
        data_dir.mkdir(parents=True)
        for f in files:
            shutil.copy(f, data_dir / f.name)
        cmd = [
            cli,
            "run",
            "-d",
            str(data_dir.parent),
            "--config",
            CLI_CONFIG,
            "--oracle",
            "--provider",
            "mock",
            "--model",
            "mock",
            "--num_runs",
            "1",
            "--max_concurrent_scenarios",
            "1",
            "--output_dir",
            str(out_dir),
        ]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            for r in results.values():
                r.cli_ok, r.cli_status = False, "cli timeout"
            return f"are-benchmark timed out after {timeout}s"
        if verbose:
            sys.stderr.write(proc.stdout + proc.stderr)
        rows = {}
        output = out_dir / "output.jsonl"
        if output.exists():
            for line in output.read_text().splitlines():
                if line.strip():
                    row = json.loads(line)
                    rows[row.get("task_id")] = row
        for r in results.values():
            row = rows.get(r.scenario_id)
            if row is None:
                r.cli_ok, r.cli_status = False, "cli: not loaded/run (see are-benchmark log with -v)"
                continue
            meta = row.get("metadata") or {}
            status = meta.get("status")
            errors = []
            trace = row.get("trace_id")
            if trace and Path(trace).exists():
                tdata = json.loads(Path(trace).read_text())
                errors = [
                    e["action"]["function"]
                    for e in tdata.get("completed_events", [])
                    if (e.get("metadata") or {}).get("exception")
                ]
            r.cli_ok = status == "success" and not meta.get("has_exception") and not errors
            r.cli_status = f"cli: {status} (score {row.get('score')})"
            if errors:
                r.cli_status += f", events with exceptions: {errors}"
        return f"are-benchmark exit code {proc.returncode}"


# --------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--skip-cli", action="store_true", help="only run the Python API checks")
    ap.add_argument("--are-benchmark", help="path to the are-benchmark executable")
    ap.add_argument("--cli-timeout", type=int, default=900)
    ap.add_argument("-v", "--verbose", action="store_true", help="show ARE's logs")
    ap.add_argument("--filesystem-dir", type=Path, help="the Files bytes (ARE's DEMO_FS_PATH)")
    args = ap.parse_args()
    fs_dir = args.filesystem_dir or args.dir / "gaia2_filesystem" / "demo_filesystem"
    if args.filesystem_dir or fs_dir.is_dir():
        os.environ["DEMO_FS_PATH"] = str(fs_dir.resolve())  # before ARE's config is imported
    use_speedups()

    logging.basicConfig(level=logging.INFO if args.verbose else logging.CRITICAL)
    if not args.verbose:
        logging.disable(logging.ERROR)

    files = sorted(p for p in args.dir.glob("*.json") if p.is_file())
    if not files:
        print(f"no *.json files in {args.dir}")
        return 1

    results: dict[str, Result] = {}
    for f in files:
        text = f.read_text()
        try:
            sid = json.loads(text)["metadata"]["definition"]["scenario_id"]
        except Exception:
            sid = f.stem
        res = Result(scenario_id=sid, path=f)
        try:
            check_api(res, text)
        except Exception as e:  # ARE refused the file
            res.api_notes.append(f"ARE error: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
        results[str(f)] = res

    cli_note = "skipped (--skip-cli)"
    if not args.skip_cli:
        cli = find_cli(args.are_benchmark)
        if cli is None:
            cli_note = "are-benchmark not found"
            for r in results.values():
                r.cli_ok, r.cli_status = False, "cli: not found"
        else:
            cli_note = run_cli(cli, files, {k: v for k, v in results.items()}, args.cli_timeout, args.verbose)

    for r in results.values():
        mark = "PASS" if r.ok else "FAIL"
        print(f"{mark} {r.scenario_id} [{r.path.name}] {r.cli_status}; api: " + "; ".join(r.api_notes))

    n = len(results)
    n_ok = sum(r.ok for r in results.values())
    n_api = sum(r.api_ok for r in results.values())
    n_cli = sum(bool(r.cli_ok) for r in results.values())
    cli_part = f"are-benchmark --oracle {n_cli}/{n} success" if not args.skip_cli else "are-benchmark skipped"
    print(
        f"SUMMARY: {n_ok}/{n} scenarios passed; {cli_part} ({cli_note}); "
        f"Python API (import + oracle run + judge accepts oracle, rejects broken oracle) {n_api}/{n}"
    )
    return 0 if n_ok == n else 1


if __name__ == "__main__":
    sys.exit(main())
