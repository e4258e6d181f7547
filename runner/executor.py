"""Run many scenarios, N containers at a time, k repetitions each, resumable at any point.

Layout: pass_at 1 writes into the output dir; pass_at k into run_1/ … run_k/. In each run dir,
artifacts go to <split>/<scenario_id>/ (or <scenario_id>/ without a split), results stream to
results.jsonl and run_config.json records what was run. summary.json sits at the output dir root.

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
import os
import threading
import time
import traceback
from collections import Counter, deque
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from gaia2_runner import __version__
from gaia2_runner.atomic_file import write_json_atomic
from gaia2_runner.config import container_env, redacted
from gaia2_runner.dataset_view import DatasetProgress
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.podman_backend import PodmanBackend
from gaia2_runner.report import Summary, summarize, write_summary
from gaia2_runner.result import ScenarioResult, now_iso, one_line, write_result
from gaia2_runner.results_log import RESULTS_FILE, ResultsLog, rewrite
from gaia2_runner.resume import (
    Job,
    all_jobs,
    collect_records,
    record_for,
    run_dirs,
    select,
)
from gaia2_runner.scenario_file import load_scenario, safe_name
from gaia2_runner.single_run import run_scenario
from rich.console import Console

if TYPE_CHECKING:
    from gaia2_runner.config import RunConfig
    from gaia2_runner.targets import ScenarioRef

RUN_CONFIG_FILE = "run_config.json"
VIEWER_REFRESH_S = 5.0
SUMMARY_FILE = "summary.json"
DEFAULT_HEALTH_TIMEOUT_S = 60.0
JOIN_POLL_S = 0.2


@dataclass
class DatasetOutcome:
    """What a dataset run left behind: one record per (scenario, repetition) that has a result."""

    output_dir: Path
    run_dirs: list[Path]
    records: list[dict[str, Any]]
    summary: Summary
    ran: int
    reused: int
    interrupted: bool = False

    @property
    def exit_code(self) -> int:
        """130 after Ctrl-C, 1 when some run has no verdict (infra error or no result), else 0."""
        if self.interrupted:
            return 130
        return 1 if self.summary.infra_errors or self.summary.missing_runs else 0


def preflight(config: "RunConfig", refs: list["ScenarioRef"], backend: PodmanBackend) -> dict[str, str]:
    """Check everything a run needs before any container starts; returns the container env.

    Raises Gaia2Error for: no scenarios, duplicate ids, a broken scenario file, a missing API key,
    a missing image.
    """
    if not refs:
        raise Gaia2Error("no scenarios to run: check the target (scenario, dataset, splits, subset)")
    seen: dict[tuple[str | None, str], str] = {}
    for ref in refs:
        key = (ref.split, safe_name(ref.scenario_id))
        if key in seen:
            raise Gaia2Error(f"scenario id {ref.scenario_id!r} appears twice ({seen[key]} and "
                             f"{ref.path}): every scenario needs its own output directory")
        seen[key] = str(ref.path)
        load_scenario(ref.path)
    env = container_env(config, os.environ)
    image = config.agent.image
    if not image:
        raise Gaia2Error("no image given: set [agent] image in the config or pass --image")
    if not backend.image_exists(image):
        raise Gaia2Error(f"image {image} not found: build it (gaia2-runner images build) or pull it")
    return env


def run_dataset(config: "RunConfig", refs: list["ScenarioRef"], *, retry: bool = False,
                console: Console | None = None, backend: PodmanBackend | None = None) -> DatasetOutcome:
    """Run every scenario `pass_at` times with `concurrency` containers; skip verified results.

    With `retry` (or `[run] retry = true`) runs that ended without a verdict are run again.
    Raises Gaia2Error before starting anything when the config or a scenario is unusable.
    """
    own_backend = backend is None
    backend = backend or PodmanBackend.connect()
    try:
        env = preflight(config, refs, backend)
        retry = bool(retry or getattr(config.run, "retry", False))
        run = _DatasetRun(config, refs, env, backend, console or Console(stderr=True), retry)
        return run.execute()
    finally:
        if own_backend:
            backend.close()


class _DatasetRun:
    """One invocation: selects jobs, runs them on worker threads, then rebuilds the outputs."""

    def __init__(self, config: "RunConfig", refs: list["ScenarioRef"], env: dict[str, str],
                 backend: PodmanBackend, console: Console, retry: bool) -> None:
        self.config, self.refs, self.env, self.backend = config, refs, env, backend
        self.console, self.retry = console, retry
        self.output_dir = Path(config.run.output_dir)
        self.pass_at = max(1, int(config.run.pass_at or 1))
        self.dirs = run_dirs(self.output_dir, self.pass_at)
        self.jobs = all_jobs(refs, self.dirs)
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._queue: deque[Job] = deque()
        self._active: set[int] = set()  # thread idents currently inside run_scenario
        self._all_done = threading.Event()
        self._remaining = 0
        self.logs = {d: ResultsLog(d / RESULTS_FILE) for d in self.dirs}
        self.started_at = now_iso()
        self.progress: DatasetProgress | None = None
        self._viewer_lock = threading.Lock()
        self._viewer_at = 0.0

    def execute(self) -> DatasetOutcome:
        t0 = time.monotonic()
        selection = select(self.jobs, self.retry)
        self._queue = deque(selection.todo)
        for run_index, directory in enumerate(self.dirs, start=1):
            self._write_run_config(directory, run_index, finished_at=None)
        known = set(self.backend._live)  # backstop below: containers this run may leave behind
        verbose = str(getattr(self.config.run, "log_level", "INFO") or "INFO").upper() == "DEBUG"
        interrupted = False
        with DatasetProgress(self.console, len(selection.todo), len(selection.done), verbose) as progress:
            self.progress = progress
            workers = [threading.Thread(target=self._worker, name=f"gaia2-worker-{i}", daemon=True)
                       for i in range(min(self._concurrency(), len(self._queue)))]
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
                progress.log("interrupted: no new scenarios; stopping the running ones…", "yellow")
                self.stop.set()
                self._interrupt_workers()
                self._join()
                for cid in set(self.backend._live) - known:
                    self.backend._live[cid].cleanup(timeout=2)
        records = self._rebuild_results()
        summary = summarize(records, self.pass_at, round(time.monotonic() - t0, 3), len(self.jobs))
        write_summary(summary, self.output_dir / SUMMARY_FILE, self._summary_header(records, interrupted))
        for run_index, directory in enumerate(self.dirs, start=1):
            self._write_run_config(directory, run_index, finished_at=now_iso())
        self._refresh_viewer(force=True)
        return DatasetOutcome(self.output_dir, self.dirs, records, summary, ran=len(selection.todo),
                              reused=len(selection.done), interrupted=interrupted)

    # ---- workers ------------------------------------------------------------------------------

    def _concurrency(self) -> int:
        return max(1, int(getattr(self.config.run, "concurrency", 1) or 1))

    def _next_job(self) -> Job | None:
        with self._lock:
            if self.stop.is_set() or not self._queue:
                return None
            return self._queue.popleft()

    def _worker(self) -> None:
        try:
            self._work()
        finally:
            with self._lock:
                self._remaining -= 1
                if self._remaining <= 0:
                    self._all_done.set()

    def _work(self) -> None:
        assert self.progress is not None
        while (job := self._next_job()) is not None:
            self.progress.started(job)
            try:
                result = self._run_job(job)
            except KeyboardInterrupt:
                return  # run_scenario wrote an "interrupted" result.json and removed its container
            self.logs[job.run_dir].append(record_for(job, result))
            self.progress.finished(job, result)
            self._refresh_viewer()

    def _refresh_viewer(self, force: bool = False) -> None:
        """Keep index.html current while results arrive: at most every few seconds, one thread at
        a time, and never at the cost of the run (a viewer error is only logged)."""
        now = time.monotonic()
        if not force and now - self._viewer_at < VIEWER_REFRESH_S:
            return
        if not self._viewer_lock.acquire(blocking=force):
            return
        try:
            self._viewer_at = now
            from gaia2_runner.viewer import regenerate_index

            regenerate_index(self.output_dir)
        except Exception as exc:  # noqa: BLE001
            if self.progress is not None:
                self.progress.log(f"viewer not updated: {one_line(str(exc))}", "yellow")
        finally:
            self._viewer_lock.release()

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
                assert self.progress is not None
                self.progress.log("still removing containers, please wait…", "yellow")

    def _run_job(self, job: Job) -> dict[str, Any]:
        """run_scenario for one job; failures before a container exists become an error result."""
        run = self.config.run
        try:
            with self._interruptible():
                result = run_scenario(
                    job.ref.path, self.config.agent.image, job.parent_dir, timeout=run.timeout,
                    health_timeout=run.health_timeout or DEFAULT_HEALTH_TIMEOUT_S,
                    runtime=self.env.get("GAIA2_RUNTIME"), extra_env=self.env, backend=self.backend,
                    progress=self._say)
            return result.to_dict()
        except Gaia2Error as exc:
            return self._error_result(job, exc.message)
        except Exception as exc:  # noqa: BLE001 - one broken run must not stop the others
            assert self.progress is not None
            self.progress.log(traceback.format_exc(), "red")
            return self._error_result(job, f"runner error: {type(exc).__name__}: {exc}")

    def _say(self, message: str) -> None:
        if message.startswith("warning") and self.progress is not None:
            self.progress.log(message, "yellow")

    def _error_result(self, job: Job, message: str) -> dict[str, Any]:
        result = ScenarioResult(scenario_id=job.ref.scenario_id, status="error", error=one_line(message),
                                image=self.config.agent.image, runtime=self.env.get("GAIA2_RUNTIME"),
                                started_at=now_iso())
        result.finish()
        write_result(result, job.result_dir)
        return result.to_dict()

    # ---- outputs ------------------------------------------------------------------------------

    def _rebuild_results(self) -> list[dict[str, Any]]:
        """results.jsonl from the result.json files: exactly one line per scenario, the latest."""
        records: list[dict[str, Any]] = []
        for directory in self.dirs:
            lines = collect_records([job for job in self.jobs if job.run_dir == directory])
            rewrite(directory / RESULTS_FILE, lines)
            records.extend(lines)
        return records

    def _write_run_config(self, directory: Path, run_index: int, finished_at: str | None) -> None:
        jobs = [job for job in self.jobs if job.run_dir == directory]
        doc = {
            "runner_version": __version__,
            "image": self.config.agent.image,
            "run_index": run_index,
            "pass_at": self.pass_at,
            "retry": self.retry,
            "started_at": self.started_at,
            "finished_at": finished_at,
            "config": redacted(self.config),
            "scenario_count": len(jobs),
            "scenarios": [{"scenario_id": j.ref.scenario_id, "split": j.ref.split,
                           "path": str(j.ref.path)} for j in jobs],
        }
        write_json_atomic(directory / RUN_CONFIG_FILE, doc)

    def _summary_header(self, records: list[dict[str, Any]], interrupted: bool) -> dict[str, Any]:
        agent, judge = self.config.agent, getattr(self.config, "judge", None)
        return {
            "runner_version": __version__,
            "generated_at": now_iso(),
            "image": agent.image,
            "provider": getattr(agent, "provider", None),
            "model": getattr(agent, "model", None),
            "judge_provider": getattr(judge, "provider", None),
            "judge_model": getattr(judge, "model", None),
            "run_dirs": [str(d) for d in self.dirs],
            "interrupted": interrupted,
            "statuses": dict(Counter(str(r.get("status")) for r in records)),
        }
