"""Run a plan: N containers at a time, k repetitions each, resumable at any point.

Layout rules are in output/layout.py. Each finished run is appended to its run directory's
results.jsonl at once; at the end results.jsonl is rebuilt from the result.json files, summary.json
is written at the output root and run_config.json gets its `finished_at`.

Ctrl-C (or SIGTERM, which the CLI turns into KeyboardInterrupt): Python only delivers it to the
main thread, which waits for the workers. It then stops handing out scenarios and raises
KeyboardInterrupt once inside every worker that is in the middle of `run_scenario` (via
PyThreadState_SetAsyncExc). `run_scenario` handles that like its own Ctrl-C: writes an
"interrupted" result.json, collects artifacts and removes its container. The main thread waits
for that cleanup (a second Ctrl-C does not cut it short), keeps every finished result and the
outcome says `interrupted` (exit code 130).
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections import Counter, deque
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from gaia2_runner import __version__, contract
from gaia2_runner.engine.jobs import Job, collect_records, record_for
from gaia2_runner.engine.observer import RunObserver
from gaia2_runner.engine.plan import RunPlan, check_image, claim_output_dir
from gaia2_runner.engine.scenario_run import env_secrets, run_scenario
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.layout import RESULTS_LOG_FILE, SUMMARY_FILE
from gaia2_runner.output.result import ScenarioResult, write_result
from gaia2_runner.output.results_log import ResultsLog, rewrite
from gaia2_runner.output.scrub import Scrubber
from gaia2_runner.output.run_record import run_record, write_run_record
from gaia2_runner.output.summary import Summary, summarize, write_summary
from gaia2_runner.sandbox.podman import PodmanBackend, PodmanUnavailable
from gaia2_runner.targets import ScenarioFile
from gaia2_runner.text import now_iso, one_line

JOIN_POLL_S = 0.2


@dataclass
class DatasetOutcome:
    """What a run left behind: one record per (scenario, repetition) that has a result."""

    output_dir: Path
    run_dirs: list[Path]
    records: list[dict[str, Any]]
    summary: Summary
    ran: int
    reused: int
    interrupted: bool = False
    noise: bool = False  # ARE's noise mode was on (the report says so)

    @property
    def exit_code(self) -> int:
        """130 after Ctrl-C, 1 when some run has no verdict (infra error or no result), else 0."""
        if self.interrupted:
            return 130
        return 1 if self.summary.infra_errors or self.summary.missing_runs else 0


def run_plan(plan: RunPlan, *, backend: PodmanBackend | None = None,
             observer: RunObserver | None = None) -> DatasetOutcome:
    """Run every job of `plan` that has no result yet; raises Gaia2Error before starting anything
    when the image is missing or the output directory holds results of another setup."""
    own_backend = backend is None
    backend = backend or PodmanBackend.connect()
    try:
        check_image(plan, backend)
        claim_output_dir(plan, backend)
        return _DatasetRun(plan, backend, observer or RunObserver()).execute()
    finally:
        if own_backend:
            backend.close()


class _DatasetRun:
    """One invocation: runs the selected jobs on worker threads, then rebuilds the outputs."""

    def __init__(self, plan: RunPlan, backend: PodmanBackend, observer: RunObserver) -> None:
        self.plan, self.backend, self.observer = plan, backend, observer
        self.jobs = plan.jobs()
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._queue: deque[Job] = deque()
        self._active: set[int] = set()  # thread idents currently inside run_scenario
        self._all_done = threading.Event()
        self._remaining = 0
        self.logs = {d: ResultsLog(d / RESULTS_LOG_FILE) for d in plan.run_dirs}
        self.scrub = Scrubber([*plan.secrets, *env_secrets(plan.env)])
        self.started_at = now_iso()

    def execute(self) -> DatasetOutcome:
        t0 = time.monotonic()
        selection = self.plan.selection()
        self._queue = deque(selection.todo)
        self._write_run_records(finished_at=None)
        known = self.backend.live_container_ids()  # backstop below: containers this run may leave
        interrupted = False
        self.observer.run_started(len(selection.todo), len(selection.done))
        workers = [threading.Thread(target=self._worker, name=f"gaia2-worker-{i}", daemon=True)
                   for i in range(min(self.plan.concurrency, len(self._queue)))]
        self._remaining = len(workers)
        if not workers:
            self._all_done.set()
        try:
            for worker in workers:
                worker.start()
            while not self._all_done.wait(JOIN_POLL_S):
                pass
        except KeyboardInterrupt:
            interrupted = True
            self.observer.interrupted()
            self.stop.set()
            self._interrupt_workers()
            self._join()
            self.backend.remove_containers(self.backend.live_container_ids() - known)
        records = self._rebuild_results()
        summary = summarize(records, self.plan.pass_at, round(time.monotonic() - t0, 3), len(self.jobs))
        write_summary(summary, self.plan.output_dir / SUMMARY_FILE, self._summary_header(records, interrupted))
        self._write_run_records(finished_at=now_iso())
        outcome = DatasetOutcome(self.plan.output_dir, self.plan.run_dirs, records, summary,
                                 ran=len(selection.todo), reused=len(selection.done), interrupted=interrupted,
                                 noise=self.plan.config.run.noise)
        self.observer.run_finished(outcome)
        return outcome

    # ---- workers ------------------------------------------------------------------------------

    def _next_job(self) -> Job | None:
        with self._lock:
            if self.stop.is_set() or not self._queue:
                return None
            return self._queue.popleft()

    def _worker(self) -> None:
        try:
            while (job := self._next_job()) is not None:
                self.observer.scenario_started(job)
                try:
                    result = self._run_job(job)
                except KeyboardInterrupt:
                    return  # run_scenario wrote an "interrupted" result.json and removed its container
                try:
                    self.logs[job.run_dir].append(record_for(job, result))
                except Exception as exc:  # noqa: BLE001 - a worker never dies: the queue goes on
                    self.observer.warning(f"results.jsonl not updated for {job.ref.scenario_id}: "
                                          f"{one_line(str(exc))} (rebuilt from result.json at the end)")
                self.observer.scenario_finished(job, result)
        finally:
            with self._lock:
                self._remaining -= 1
                if self._remaining <= 0:
                    self._all_done.set()

    @contextmanager
    def _interruptible(self) -> Iterator[None]:
        ident = threading.get_ident()
        with self._lock:
            if self.stop.is_set():
                raise KeyboardInterrupt
            self._active.add(ident)
        try:
            yield
        finally:
            with self._lock:
                self._active.discard(ident)

    def _interrupt_workers(self) -> None:
        """Raise KeyboardInterrupt once in each worker inside run_scenario (never twice: a second
        one could cut its cleanup short, as deferred_interrupts only guards the main thread)."""
        with self._lock:
            for ident in self._active:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                    ctypes.c_ulong(ident), ctypes.py_object(KeyboardInterrupt))
            self._active.clear()

    def _join(self) -> None:
        """Wait for every worker; a second Ctrl-C does not cut the cleanup short.

        Not with Thread.join: a KeyboardInterrupt landing inside join() can make CPython mark a
        still-running thread as stopped (bpo-45274), so the workers set our own event instead."""
        while True:
            try:
                while not self._all_done.wait(JOIN_POLL_S):
                    pass
                return
            except KeyboardInterrupt:
                self.observer.warning("still removing containers, please wait…")

    def _run_job(self, job: Job) -> dict[str, Any]:
        """run_scenario for one job; any failure before a container exists becomes an error result."""
        while True:
            try:
                return self._run_once(job)
            except PodmanUnavailable as exc:
                if not self._wait_for_podman(exc.message):
                    return self._error_result(job, f"{exc.message}; gave up after waiting "
                                                   f"{self.plan.podman_wait:g}s (podman_wait)")

    def _wait_for_podman(self, why: str) -> bool:
        """A podman outage: wait (with backoff, bounded by podman_wait) instead of failing every
        queued run at once. True when it answers again; KeyboardInterrupt when the user stops."""
        self.observer.warning(f"{why}: waiting up to {self.plan.podman_wait:g}s for it to come back")
        back = self.backend.wait_until_reachable(self.plan.podman_wait, stop=self.stop.is_set)
        if self.stop.is_set():
            raise KeyboardInterrupt
        return back

    def _run_once(self, job: Job) -> dict[str, Any]:
        plan, ref = self.plan, job.ref
        try:
            scenario = ScenarioFile(path=ref.path, scenario_id=ref.scenario_id, duration=ref.duration,
                                    raw=ref.path.read_bytes(), warnings=list(ref.warnings),
                                    data_files=ref.data_files)
            with self._interruptible():
                result = run_scenario(
                    scenario, plan.config.agent.image, job.parent_dir, timeout=plan.config.run.timeout,
                    health_timeout=plan.health_timeout, runtime=plan.env.get(contract.ENV_RUNTIME),
                    extra_env=plan.env, backend=self.backend, progress=self._say, secrets=plan.secrets,
                    podman_wait=plan.podman_wait, filesystem_dir=plan.config.target.filesystem_dir)
            return result.to_dict()
        except PodmanUnavailable:
            raise
        except Gaia2Error as exc:
            return self._error_result(job, exc.message)
        except OSError as exc:
            return self._error_result(job, f"cannot read {ref.path}: {exc.strerror or exc}")
        except Exception as exc:  # noqa: BLE001 - one broken run must not stop the others
            return self._error_result(job, f"runner error: {type(exc).__name__}: {exc}")

    def _say(self, message: str) -> None:
        if message.startswith("warning"):
            self.observer.warning(message)

    def _error_result(self, job: Job, message: str) -> dict[str, Any]:
        result = ScenarioResult(scenario_id=job.ref.scenario_id, status="error", error=one_line(message),
                                image=self.plan.config.agent.image, runtime=self.plan.env.get(contract.ENV_RUNTIME),
                                started_at=now_iso())
        result.finish()
        result.redact(self.scrub)
        try:
            write_result(result, job.result_dir)
        except OSError as exc:  # the run goes on; this job shows as missing in the summary
            self.observer.warning(f"cannot write {job.result_path}: {exc.strerror or exc}")
        return result.to_dict()

    # ---- outputs ------------------------------------------------------------------------------

    def _rebuild_results(self) -> list[dict[str, Any]]:
        """results.jsonl from the result.json files: exactly one line per scenario, the latest."""
        records: list[dict[str, Any]] = []
        for directory in self.plan.run_dirs:
            lines = collect_records([job for job in self.jobs if job.run_dir == directory])
            rewrite(directory / RESULTS_LOG_FILE, lines)
            records.extend(lines)
        return records

    def _write_run_records(self, finished_at: str | None) -> None:
        for run_index, directory in enumerate(self.plan.run_dirs, start=1):
            jobs = [job for job in self.jobs if job.run_dir == directory]
            record = run_record(
                self.plan.config, command=self.plan.command, run_index=run_index, pass_at=self.plan.pass_at,
                retry=self.plan.retry, started_at=self.started_at, finished_at=finished_at,
                scenarios=[(j.ref.scenario_id, j.ref.split, j.ref.path) for j in jobs])
            write_run_record(directory, self.scrub.value(record))

    def _summary_header(self, records: list[dict[str, Any]], interrupted: bool) -> dict[str, Any]:
        agent, judge = self.plan.config.agent, self.plan.config.judge
        return {
            "runner_version": __version__,
            "generated_at": now_iso(),
            "image": agent.image,
            "provider": agent.provider,
            "model": agent.model,
            "judge_provider": judge.provider,
            "judge_model": judge.model,
            "noise": self.plan.config.run.noise,
            "run_dirs": [str(d) for d in self.plan.run_dirs],
            "interrupted": interrupted,
            "statuses": dict(Counter(str(r.get("status")) for r in records)),
        }
