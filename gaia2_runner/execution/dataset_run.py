"""Run a plan: N containers at a time, k repetitions each, resumable at any point.

Layout rules are in output/layout.py. Each finished run is appended to its run directory's
results.jsonl at once; at the end results.jsonl is rebuilt from the result.json files, summary.json
is written at the output root and run_config.json gets its `finished_at`.

Ctrl-C (or SIGTERM): the main thread stops handing out scenarios, interrupts every worker inside
`run_scenario` (execution/interrupts.py), waits for their cleanup, keeps every finished result and
the outcome says `interrupted` (exit code 130).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any

from gaia2_contract import constants as contract
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.dataset_records import rebuild_results, summary_header, write_run_records
from gaia2_runner.execution.hosts import (
    Host,
    HostWatch,
    connect_first,
    connect_hosts,
    prepare_images,
    slot_order,
)
from gaia2_runner.execution.image_pin import ImagePin
from gaia2_runner.execution.interrupts import JOIN_POLL_S, WorkerInterrupts, wait_for
from gaia2_runner.execution.job_limits import CONFIGURATION_FAULT, JobLimits, mark_stopped, on_stop_message
from gaia2_runner.execution.jobs import Job, record_for
from gaia2_runner.execution.observer import RunObserver
from gaia2_runner.execution.outcome import DatasetOutcome
from gaia2_runner.execution.plan import RunPlan, check_image, claim_output_dir
from gaia2_runner.execution.preflight import check_before_run
from gaia2_runner.execution.scenario_run import env_secrets, run_scenario
from gaia2_runner.output.atomic import write_json_atomic
from gaia2_runner.output.dir_lock import lock_output_dir, this_command
from gaia2_runner.output.layout import RESULTS_LOG_FILE, SUMMARY_FILE
from gaia2_runner.output.result import ScenarioResult, write_result
from gaia2_runner.output.results_log import ResultsLog
from gaia2_runner.output.scrub import Scrubber
from gaia2_runner.output.summary import summarize, write_summary
from gaia2_runner.sandbox.engine import EngineUnavailable
from gaia2_runner.sandbox.sandbox import Sandbox
from gaia2_runner.targets import ScenarioFile
from gaia2_runner.text import now_iso, one_line


def run_plan(
    plan: RunPlan, *, sandbox: Sandbox | None = None, observer: RunObserver | None = None
) -> DatasetOutcome:
    """Run every job of `plan` that has no result yet; raises Gaia2Error before starting anything
    when another job writes into the output directory, the image is missing or the directory
    holds results of another setup. The directory's lock is held until the outputs are written."""
    observer = observer or RunObserver()
    # First of all: one job per output directory (output/dir_lock.py); a second is refused here.
    command = Scrubber([*plan.secrets, *env_secrets(plan.env)]).text(this_command())
    with lock_output_dir(plan.output_dir, plan.shard, command=command, notice=observer.warning):
        return _run_locked(plan, sandbox, observer)


def _run_locked(plan: RunPlan, sandbox: Sandbox | None, observer: RunObserver) -> DatasetOutcome:
    own_sandbox = sandbox is None
    sandbox = sandbox or connect_first(plan.config)
    hosts: list[Host] = []
    try:
        hosts = connect_hosts(plan.config, sandbox, observer.warning)
        if len(hosts) > 1:
            plan.state_dir.mkdir(parents=True, exist_ok=True)  # runner.log records the builds below
            hosts = prepare_images(hosts, plan.config.agent.image, observer.warning)
        else:
            check_image(plan, sandbox)
        preflight = check_before_run(
            plan, hosts[0].sandbox
        )  # a dead endpoint ends the job here, nothing written
        pin = claim_output_dir(plan, hosts[0].sandbox)
        if note := pin.note():
            observer.warning(note)
        for warning in preflight.warnings:
            observer.warning(warning)
        return _DatasetRun(plan, hosts, observer, pin).execute()
    finally:
        for host in hosts:
            if host.own:
                host.sandbox.close()
        if own_sandbox:
            sandbox.close()


class _DatasetRun:
    """One invocation: runs the selected jobs on worker threads, then rebuilds the outputs."""

    def __init__(
        self, plan: RunPlan, hosts: list[Host], observer: RunObserver, pin: ImagePin | None = None
    ) -> None:
        self.plan, self.hosts, self.observer = plan, hosts, observer
        self.pin = pin  # the image by id, as the run started with it (execution/image_pin.py)
        self.sandbox = hosts[0].sandbox
        self.engine = self.sandbox.info().as_dict()  # run_config.json's `engine`: the planning host's
        self.jobs = plan.jobs()
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._queue: deque[Job] = deque()
        self._in_flight = 0  # jobs taken and not finished: they may come back to the queue
        self.interrupts: WorkerInterrupts[Host] = WorkerInterrupts(self._lock)  # workers in run_scenario
        self._lost_runs: dict[Job, list[dict[str, str]]] = {}  # runs a lost host cost, per job
        self.watch = HostWatch(hosts, self._host_lost)
        self._all_done = threading.Event()
        self._remaining = 0
        self.limits = JobLimits(1)  # replaced in execute() once the slots and the finished runs are known
        self.logs = {i: ResultsLog(d / RESULTS_LOG_FILE) for i, d in enumerate(plan.record_dirs, start=1)}
        self.scrub = Scrubber([*plan.secrets, *env_secrets(plan.env)])
        self.started_at = now_iso()

    def execute(self) -> DatasetOutcome:
        t0 = time.monotonic()
        selection = self.plan.selection()
        self._queue = deque(selection.todo)
        write_run_records(self.plan, self.jobs, self.scrub, self.started_at, None, self.pin, self.engine)
        known = {h.url: h.sandbox.live_container_ids() for h in self.hosts}  # backstop for Ctrl-C below
        interrupted = False
        self.observer.run_started(len(selection.todo), len(selection.done))
        workers = [
            threading.Thread(target=self._worker, args=(host,), name=f"gaia2-worker-{i}", daemon=True)
            for i, host in enumerate(slot_order(self.hosts)[: len(self._queue)])
        ]
        self.limits = JobLimits(
            len(workers), self.plan.config.run.cost_limit, [data for _, data in selection.done]
        )
        if self.limits.stop is not None:
            self.observer.warning(on_stop_message(self.limits.stop))
        self.watch.start()
        self._remaining = len(workers)
        self._use_warm_pools(len(workers))
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
            self.interrupts.interrupt()
            wait_for(self._all_done, self.observer.warning)
            for host in self.hosts:
                host.sandbox.remove_containers(host.sandbox.live_container_ids() - known[host.url])
        finally:
            self.watch.stop()
            for host in self.hosts:
                host.sandbox.close_warm_pool()  # the spares no run took
        records = rebuild_results(self.plan, self.jobs)
        summary = summarize(records, self.plan.pass_at, round(time.monotonic() - t0, 3), len(self.jobs))
        write_summary(
            summary,
            self.plan.state_dir / SUMMARY_FILE,
            summary_header(self.plan, self.hosts, self.limits, records, interrupted),
        )
        write_run_records(self.plan, self.jobs, self.scrub, self.started_at, now_iso(), self.pin, self.engine)
        outcome = DatasetOutcome(
            self.plan.state_dir,
            self.plan.record_dirs,
            records,
            summary,
            ran=len(selection.todo),
            reused=len(selection.done),
            interrupted=interrupted,
            noise=self.plan.config.run.noise,
            stopped=self.limits.stop.to_dict() if self.limits.stop else None,
        )
        self.observer.run_finished(outcome)
        return outcome

    def _use_warm_pools(self, workers: int) -> None:
        """`[run] warm_pool`: each host keeps a spare per slot while runs are queued and the job
        goes on (sandbox/warm_pool.py)."""
        if not self.plan.config.run.warm_pool:
            return

        def pending() -> int:
            return 0 if self.stop.is_set() or self.limits.halted else len(self._queue)

        for host in self.hosts:
            host.sandbox.use_warm_pool(min(host.slots, workers), pending, self.observer.warning)

    # ---- workers ------------------------------------------------------------------------------

    def _next_job(self, host: Host) -> Job | None:
        """The next job; while the queue is empty but runs are in flight, wait: a lost host may
        send its runs back."""
        with self._wake:
            while not self.stop.is_set() and not host.lost:
                if self._queue and self.limits.admits(self._in_flight):
                    self._in_flight += 1
                    return self._queue.popleft()
                if self._in_flight == 0:
                    return None
                self._wake.wait(JOIN_POLL_S)
                self._warn(self.limits.tick())
            return None

    def _job_done(self, job: Job, again: bool = False) -> None:
        with self._wake:
            self._in_flight -= 1
            if again:
                self._queue.appendleft(job)
            self._wake.notify_all()

    def _worker(self, host: Host) -> None:
        try:
            while (job := self._next_job(host)) is not None:
                self.observer.scenario_started(job)
                try:
                    result = self._run_job(job, host)
                except KeyboardInterrupt:
                    if host.lost and not self.stop.is_set():
                        self._reschedule(
                            job, host, f"engine host {host.url} stopped answering during the run"
                        )
                        return
                    if self.limits.halted:
                        self._end_as_stopped(job)
                    self._job_done(job)
                    return  # run_scenario wrote an "interrupted" result.json and removed its container
                if result is None:  # the host was given up before the container started
                    self._reschedule(job, host, f"engine host {host.url} stopped answering")
                    return
                self._account(job, result)
                self._job_done(job)
                result = self._note_host(job, host, result)
                try:
                    self.logs[job.run_index].append(record_for(job, result))
                except Exception as exc:  # noqa: BLE001 - a worker never dies: the queue goes on
                    self.observer.warning(
                        f"results.jsonl not updated for {job.ref.scenario_id}: "
                        f"{one_line(str(exc))} (rebuilt from result.json at the end)"
                    )
                self.observer.scenario_finished(job, result)
        finally:
            with self._lock:
                self._remaining -= 1
                if self._remaining <= 0:
                    self._all_done.set()

    def _host_lost(self, host: Host, why: str) -> None:
        """HostWatch gave `host` up: its runs in flight stop and go back to the queue."""
        running = self.interrupts.running_on(host)
        self.observer.warning(
            f"{why}: giving it up; {running} run(s) in flight there are rescheduled on the other hosts"
        )
        self.interrupts.interrupt(host)
        with self._wake:
            self._wake.notify_all()

    def _reschedule(self, job: Job, host: Host, why: str) -> None:
        """Record the lost run as an infrastructure error naming the host, and queue it again."""
        result = self._error_result(job, f"{why}; rescheduled on another host")
        self._lost_runs.setdefault(job, []).append({"host": host.url, "error": why})
        result = self._note_host(job, host, result)
        try:
            self.logs[job.run_index].append(record_for(job, result))
        except Exception:  # noqa: BLE001 - the rerun's line follows; the end rebuild keeps the last
            pass
        self.observer.warning(f"{job.ref.scenario_id}: {why}: rescheduled")
        self._job_done(job, again=True)

    def _note_host(self, job: Job, host: Host, result: dict[str, Any]) -> dict[str, Any]:
        """With several hosts, result.json says where the run ran and which runs a lost host cost."""
        if len(self.hosts) < 2:
            return result
        result = {**result, "host": host.url}
        if self._lost_runs.get(job):
            result["rescheduled_from"] = list(self._lost_runs[job])
        try:
            write_json_atomic(job.result_path, result)
        except OSError as exc:
            self.observer.warning(f"cannot write {job.result_path}: {exc.strerror or exc}")
        return result

    def _run_job(self, job: Job, host: Host) -> dict[str, Any] | None:
        """run_scenario for one job; any failure before a container exists becomes an error result.
        None when `host` was given up instead (the job goes to another host)."""
        while True:
            try:
                return self._run_once(job, host)
            except EngineUnavailable as exc:
                if host.lost or (not host.sandbox.ping() and self.watch.give_up(host, exc.message)):
                    return None
                if not self._wait_for_engine(host, exc.message):
                    return self._error_result(
                        job, f"{exc.message}; gave up after waiting {self.plan.engine_wait:g}s (engine_wait)"
                    )

    def _wait_for_engine(self, host: Host, why: str) -> bool:
        """An engine outage: wait (with backoff, bounded by engine_wait) instead of failing every
        queued run at once. True when it answers again; KeyboardInterrupt when the user stops."""
        self.observer.warning(f"{why}: waiting up to {self.plan.engine_wait:g}s for it to come back")
        back = host.sandbox.wait_until_reachable(self.plan.engine_wait, stop=self.stop.is_set)
        if self.stop.is_set():
            raise KeyboardInterrupt
        return back

    def _run_once(self, job: Job, host: Host) -> dict[str, Any]:
        plan, ref = self.plan, job.ref
        try:
            scenario = ScenarioFile(
                path=ref.path,
                scenario_id=ref.scenario_id,
                duration=ref.duration,
                raw=ref.path.read_bytes(),
                warnings=list(ref.warnings),
                data_files=ref.data_files,
            )
            with self.interrupts.inside(host, lambda: self.stop.is_set() or host.lost or self.limits.halted):
                result = run_scenario(
                    scenario,
                    self.pin.ref_on(host.sandbox) if self.pin else plan.config.agent.image,
                    job.parent_dir,
                    image_name=plan.config.agent.image,
                    timeout=plan.config.run.timeout,
                    health_timeout=plan.health_timeout,
                    runtime=plan.env.get(contract.ENV_RUNTIME),
                    extra_env=plan.env,
                    sandbox=host.sandbox,
                    progress=self._say,
                    secrets=plan.secrets,
                    engine_wait=plan.engine_wait,
                    filesystem_dir=plan.config.target.filesystem_dir,
                    limits=plan.limits,
                    on_status=lambda doc: self._warn(self.limits.status_seen(job, doc)),
                )
            return result.to_dict()
        except EngineUnavailable:
            raise
        except Gaia2Error as exc:
            return self._error_result(job, exc.message)
        except OSError as exc:
            return self._error_result(job, f"cannot read {ref.path}: {exc.strerror or exc}")
        except Exception as exc:  # noqa: BLE001 - one broken run must not stop the others
            return self._error_result(job, f"runner error: {type(exc).__name__}: {exc}")

    def _warn(self, message: str | None) -> None:
        if message is not None:
            self.observer.warning(message)

    def _account(self, job: Job, result: dict[str, Any]) -> None:
        """A finished run's cost and fault; a configuration fault stops the runs in flight."""
        stop = self.limits.run_finished(job, result)
        if stop is None:
            return
        self.observer.warning(on_stop_message(stop))
        if stop.kind == CONFIGURATION_FAULT:
            self.interrupts.interrupt()
        with self._wake:
            self._wake.notify_all()

    def _end_as_stopped(self, job: Job) -> None:
        """A run cut short by another run's configuration fault (job_limits.mark_stopped)."""
        try:
            record = mark_stopped(job, self.limits)
            if record is not None:
                self.logs[job.run_index].append(record_for(job, record))
                self.observer.scenario_finished(job, record)
        except Exception as exc:  # noqa: BLE001 - the end rebuild reads result.json again
            self.observer.warning(
                f"cannot record the stopped run {job.ref.scenario_id}: {one_line(str(exc))}"
            )

    def _say(self, message: str) -> None:
        if message.startswith("warning"):
            self.observer.warning(message)

    def _error_result(self, job: Job, message: str) -> dict[str, Any]:
        result = ScenarioResult(
            scenario_id=job.ref.scenario_id,
            status="error",
            error=one_line(message),
            image=self.plan.config.agent.image,
            runtime=self.plan.env.get(contract.ENV_RUNTIME),
            started_at=now_iso(),
        )
        result.finish()
        result.redact(self.scrub)
        try:
            write_result(result, job.result_dir)
        except OSError as exc:  # the run goes on; this job shows as missing in the summary
            self.observer.warning(f"cannot write {job.result_path}: {exc.strerror or exc}")
        return result.to_dict()
