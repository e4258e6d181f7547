"""Run one scenario in one container, from scenario file to result.json.

Once a container exists, every way out of `run_scenario` (verdict, daemon error, crash, timeout,
Ctrl-C) writes result.json and container.log and removes the container. Everything it writes goes
through one `Scrubber` holding the run's secret values.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import BinaryIO, cast

import httpx

from gaia2_contract import constants as contract
from gaia2_runner.config.defaults import (
    ALIVE_CHECK_S,
    DEFAULT_ENGINE_WAIT_S,
    DEFAULT_HEALTH_TIMEOUT_S,
    DURATION_GRACE_S,
    JUDGING_GRACE_S,
    RUNNER_GRACE_S,
    STATUS_POLL_FIRST_S,
    STATUS_POLL_S,
    UNKNOWN_DURATION_TIMEOUT_S,
)
from gaia2_runner.config.limits import DEFAULT_LIMITS, ContainerLimits
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.container_env import ca_bundle_files, container_env
from gaia2_runner.output.artifacts import Extraction, extract_output, write_text
from gaia2_runner.output.layout import CONTAINER_LOG_FILE, scenario_dir_name
from gaia2_runner.output.result import ScenarioResult, write_result
from gaia2_runner.output.scrub import Scrubber
from gaia2_runner.sandbox.adapter import (
    AdapterClient,
    AdapterError,
    ContainerExited,
    HealthFailed,
    HealthTimeout,
)
from gaia2_runner.sandbox.api_errors import unreachable
from gaia2_runner.sandbox.container_handle import STOPPED_GRACE_S, ContainerHandle
from gaia2_runner.sandbox.container_logs import exit_text
from gaia2_runner.sandbox.engine import EngineUnavailable
from gaia2_runner.sandbox.keepalive import KeepAlive, keepalive_s
from gaia2_runner.sandbox.sandbox import Sandbox, deferred_interrupts
from gaia2_runner.sandbox.streams import ChunkReader
from gaia2_runner.targets.filesystem_data import default_filesystem_dir, ensure_files
from gaia2_runner.targets.scenario_file import ScenarioFile, load_scenario
from gaia2_runner.text import now_iso, one_line

Progress = Callable[[str], None]


def default_timeout(duration: float | None) -> float:
    """Run timeout when none is given: the scenario duration plus a buffer."""
    return UNKNOWN_DURATION_TIMEOUT_S if duration is None else duration + DURATION_GRACE_S


def env_secrets(env: Mapping[str, str]) -> list[str]:
    """Values of the container's `*_API_KEY` variables: secrets wherever they came from (the
    plan, `extra_env`, or the host's GAIA2_AGENT_*/GAIA2_JUDGE_* variables)."""
    return [value for name, value in env.items() if name.upper().endswith("_API_KEY") and value]


def run_scenario(
    scenario_path: str | Path | ScenarioFile,
    image: str,
    output_dir: str | Path,
    timeout: float | None = None,
    health_timeout: float = DEFAULT_HEALTH_TIMEOUT_S,
    runtime: str | None = None,
    extra_env: Mapping[str, str] | None = None,
    sandbox: Sandbox | None = None,
    progress: Progress | None = None,
    secrets: Iterable[str] = (),
    engine_wait: float = DEFAULT_ENGINE_WAIT_S,
    filesystem_dir: str | Path | None = None,
    image_name: str | None = None,
    on_status: Callable[[dict], None] | None = None,
    limits: ContainerLimits = DEFAULT_LIMITS,
) -> ScenarioResult:
    """Evaluate one scenario file with `image`; artifacts go to `output_dir/<scenario_id>/`.

    `image_name` is what result.json names when `image` is a pinned image id (the tag the run was
    asked for, execution/image_pin.py). `secrets` are values never to be written (RunPlan.secrets:
    keys, `--env` values); the container's `*_API_KEY` values are always added. Artifacts,
    container.log, result.json and the returned result are scrubbed of them. `limits` bound the
    container (config/limits.py). `on_status` sees each status document the daemon serves while the
    run goes (the job's adaptive concurrency reads the relay's counts there). A scenario whose
    Files app names data (`real_path`) gets `filesystem_dir` (default `<cache>/gaia2_filesystem`,
    fetched once) mounted read-only; files still missing make an infrastructure error, no container.

    Raises Gaia2Error before anything starts (bad file, missing image, no podman). After the
    container exists, problems end up in the returned result instead. KeyboardInterrupt is
    re-raised after cleanup, with result.json saying "interrupted".
    """
    say = progress or (lambda _msg: None)
    scenario = _checked_scenario(scenario_path, timeout, health_timeout, say)
    own_sandbox = sandbox is None
    sandbox = sandbox or Sandbox.connect()
    try:
        if not sandbox.image_exists(image):
            raise Gaia2Error(f"image {image} not found: build it with `gaia2-runner images build`")
        run_timeout = timeout if timeout is not None else default_timeout(scenario.duration)
        env = container_env(
            None,
            scenario_timeout=run_timeout,
            health_timeout=health_timeout,
            runtime=runtime,
            extra=extra_env,
        )
        dest = Path(output_dir) / scenario_dir_name(scenario.scenario_id)
        scrub = Scrubber([*secrets, *env_secrets(env)])
        run = _Run(scenario, image, dest, env, sandbox, say, ca_bundle_files(), scrub, engine_wait)
        run.result.image = image_name or image
        run.on_status, run.limits = on_status, limits
        _mount_files(run, scenario, filesystem_dir)
        return run.execute(run_timeout, health_timeout)
    finally:
        if own_sandbox:
            sandbox.close()


def _checked_scenario(
    scenario_path: str | Path | ScenarioFile, timeout: float | None, health_timeout: float, say: Progress
) -> ScenarioFile:
    """The scenario, read and checked with its times before any engine is asked (its warnings said)."""
    scenario = scenario_path if isinstance(scenario_path, ScenarioFile) else load_scenario(scenario_path)
    for warning in scenario.warnings:
        say(f"warning: {warning}")
    if timeout is not None and timeout <= 0:
        raise Gaia2Error(f"--timeout must be positive, got {timeout:g}")
    if health_timeout <= 0:
        raise Gaia2Error(f"--health-timeout must be positive, got {health_timeout:g}")
    return scenario


def _mount_files(run: _Run, scenario: ScenarioFile, filesystem_dir: str | Path | None) -> None:
    """The Files app's data for a scenario that names some (fetched once); still missing files make
    the run an infrastructure error naming them, with no container started."""
    if not scenario.data_files:
        return
    try:
        run.filesystem_dir = str(
            ensure_files(Path(filesystem_dir or default_filesystem_dir()), scenario.data_files)
        )
    except Gaia2Error as exc:
        run.preflight_error = exc.message


class _Run:
    """State of one run, so every exit path can write the same result."""

    def __init__(
        self,
        scenario: ScenarioFile,
        image: str,
        dest: Path,
        env: dict[str, str],
        sandbox: Sandbox,
        say: Progress,
        files: dict[str, bytes] | None = None,
        scrub: Scrubber | None = None,
        engine_wait: float = DEFAULT_ENGINE_WAIT_S,
    ) -> None:
        self.scenario, self.image, self.dest, self.env = scenario, image, dest, env
        self.engine_wait = engine_wait
        self.files = files or {}
        self.scrub = scrub or Scrubber()
        self.sandbox, self.say = sandbox, say
        self.result = ScenarioResult(
            scenario_id=scenario.scenario_id,
            image=image,
            runtime=env.get(contract.ENV_RUNTIME),
            output_dir=dest,
            started_at=now_iso(),
        )
        self.handle: ContainerHandle | None = None
        self.filesystem_dir: str | None = None  # mounted read-only at contract.FILESYSTEM_DIR
        self.preflight_error: str | None = None  # an infrastructure error found before starting
        self.on_status: Callable[[dict], None] | None = None  # sees each live status document
        self.limits = DEFAULT_LIMITS
        self.t0 = time.monotonic()

    def execute(self, run_timeout: float, health_timeout: float) -> ScenarioResult:
        result, timings = self.result, self.result.timings
        self.dest.mkdir(parents=True, exist_ok=True)
        interrupted = False
        try:
            if self.preflight_error:
                result.status, result.success, result.error = "error", None, self.preflight_error
                return result
            self.say(f"{self.scenario.scenario_id}: starting {self.image}")
            try:
                self.handle = self.sandbox.run_scenario_container(
                    self.image,
                    self.scenario.raw,
                    self.env,
                    self.scenario.scenario_id,
                    extra_files=self.files,
                    output_dir=str(self.dest.resolve()),
                    filesystem_dir=self.filesystem_dir,
                    limits=self.limits,
                    warm=True,  # a spare of the job's warm pool when there is one
                )
            except EngineUnavailable:
                raise  # no container yet: the caller waits for the API (engine_wait) and runs it again
            except Gaia2Error as exc:
                result.status, result.error = "error", exc.message
                return result
            result.container_id, result.warm_start = self.handle.id, self.handle.warm
            timings.start_s = self._lap()
            with (
                KeepAlive(self.handle, keepalive_s(self.env)),  # however long the engine's answers take
                AdapterClient(self.handle.base_url, self.handle.adapter_token) as client,
            ):
                if self._wait_healthy(client, health_timeout):
                    timings.ready_s = self._lap()
                    self._poll_until_final(client, run_timeout)
                    timings.run_s = self._lap()
        except KeyboardInterrupt:
            interrupted = True
            result.status, result.success = "interrupted", None
            result.error = "interrupted by the user"
        finally:
            with deferred_interrupts():
                self._collect_and_clean()
        if interrupted:
            raise KeyboardInterrupt
        return result

    def _lap(self) -> float:
        """Seconds since the previous lap (phase durations add up to the total)."""
        now = time.monotonic()
        elapsed, self._last = now - getattr(self, "_last", self.t0), now
        return round(elapsed, 3)

    def _wait_healthy(self, client: AdapterClient, health_timeout: float) -> bool:
        result, handle = self.result, self.handle
        assert handle is not None
        try:
            health = client.wait_healthy(health_timeout, handle.is_running)
        except HealthTimeout as exc:
            result.status, result.success, result.error = "error", None, str(exc)
        except HealthFailed as exc:
            result.status, result.success = "error", None
            result.error = one_line(
                f"container could not start the run: {exc}"
            )  # scenario, settings or agent command
        except ContainerExited:
            self._mark_crashed("before /health was ok")
        else:
            result.runtime = result.runtime or health.get("runtime")
            self.say(f"{self.scenario.scenario_id}: ready on {handle.base_url}")
            return True
        return False

    def _poll_until_final(self, client: AdapterClient, run_timeout: float) -> None:
        result, handle = self.result, self.handle
        assert handle is not None
        started = time.monotonic()
        deadline = started + run_timeout + RUNNER_GRACE_S
        interval, alive_checked = STATUS_POLL_FIRST_S, started
        while True:
            try:
                doc = client.get_status()
            except (httpx.HTTPError, AdapterError):
                doc = None
            if doc is not None:
                result.apply_status(doc)
                if self.on_status is not None:
                    self.on_status(doc)
                if doc.get("status") in contract.FINAL_STATUSES:
                    return
                if doc.get("status") == "judging":
                    deadline = max(deadline, started + run_timeout + JUDGING_GRACE_S)
            # Ask podman every ALIVE_CHECK_S, and whenever the adapter does not answer.
            now = time.monotonic()
            if doc is None or now - alive_checked >= ALIVE_CHECK_S:
                alive_checked = now
                if not handle.is_running():
                    self._mark_crashed("while the scenario ran")
                    return
            if time.monotonic() >= deadline:
                result.status, result.success = "unresponsive", None
                result.error = (
                    f"no final status after {run_timeout:g}s: the container stopped answering in time"
                )
                return
            time.sleep(interval)
            interval = min(interval * 2, STATUS_POLL_S)

    def _mark_crashed(self, when: str) -> None:
        result, handle = self.result, self.handle
        assert handle is not None
        code, _, last = exit_text(handle).partition(": ")
        result.status, result.success = "crashed", None
        result.error = one_line(f"container exited with {code} {when}" + (f": {last}" if last else ""))
        result.failure_reasons.append(result.error)

    def _extract_archive(self, handle: ContainerHandle) -> Extraction | None:
        """Extract the output tar as it streams in (never whole in memory, capped); while podman
        does not answer, wait for it (up to `engine_wait`), so an engine outage costs time, not a
        run's artifacts. None when it could not be read."""
        for attempt in range(2):
            try:
                with handle.open_archive(contract.OUTPUT_DIR) as chunks:
                    reader = cast(BinaryIO, ChunkReader(chunks))  # a read-only binary file
                    return extract_output(reader, self.dest, scrub=self.scrub)
            except Exception as exc:  # noqa: BLE001 - a dead container must not lose the result
                if attempt == 0 and unreachable(exc):
                    self.say(
                        f"warning: {self.sandbox.engine} API unreachable while collecting {self.scenario.scenario_id}: "
                        f"waiting up to {self.engine_wait:g}s"
                    )
                    if self.sandbox.wait_until_reachable(self.engine_wait):
                        continue
                self.result.failure_reasons.append(
                    one_line(f"could not collect {contract.OUTPUT_DIR}: {exc}")
                )
                # The verdict stands, but its evidence is missing: --retry runs it again.
                self.result.artifacts_lost = True
                return None
        return None

    def _final_status_from_file(self) -> None:
        """The adapter API gave no final status in time, but the daemon may have written one (its
        last file): that verdict stands, and the unanswered polls are kept as a note."""
        result = self.result
        try:
            doc = json.loads((self.dest / contract.STATUS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if isinstance(doc, dict) and doc.get("status") in contract.FINAL_STATUSES:
            unanswered, result.error = result.error, None
            result.apply_status(doc)
            result.failure_reasons.append(f"{unanswered}; the verdict is the daemon's {contract.STATUS_FILE}")

    def _collect_and_clean(self) -> None:
        """Archive + logs in one pass, then stop/remove; always write result.json."""
        result, handle = self.result, self.handle
        start = time.monotonic()
        if handle is not None:
            if not handle.is_running():  # it ended on its own: let podman's cleanup finish first,
                handle.wait_exited(STOPPED_GRACE_S + 2)  # or the archive may miss what it wrote
            extraction = self._extract_archive(handle)
            if extraction is not None:
                result.failure_reasons.extend(f"artifact skipped: {s}" for s in extraction.skipped)
                if (
                    result.status == "unresponsive"
                    and self.dest.resolve() / contract.STATUS_FILE in extraction.written
                ):
                    self._final_status_from_file()  # this run's file, not one a resumed run left
            try:
                log_text = handle.logs()
            except Exception as exc:  # noqa: BLE001
                log_text = f"[gaia2-runner] could not read container logs: {exc}\n"
            write_text(self.dest, CONTAINER_LOG_FILE, log_text, self.scrub)
            result.timings.collect_s = round(time.monotonic() - start, 3)
            handle.cleanup(timeout=2)  # everything is collected: no need for a long grace period
        result.timings.total_s = round(time.monotonic() - self.t0, 3)
        result.finish()
        result.redact(self.scrub)  # the returned result too: it feeds results.jsonl and the terminal
        write_result(result, self.dest)
