"""Fail fast on a model endpoint that cannot work, before a job's first scenario.

Without this, a stopped server, a wrong key or a typo in the model name costs every scenario a
container start and the agent's retries, and the job ends incomplete minutes later. One short
container of the run's own image, network setup and variables (the agent's and the judge's
settings, proxies, CA bundle) runs `gaia2_container.preflight` instead of the daemon: one tiny
request to each endpoint, plus one offering a tool to the agent's. What must fail every scenario
(nothing listens, no such host, no answer, key refused, model unknown, a server error, tools
refused by an agent that sends them) ends the job with one error naming the setting, what
happened and the fix, before anything is written; what an agent may survive (rate limited now, a
model that answers a tool offer with text) is a warning. The check's own trouble (an image
without the module) is a warning too: it never blocks a run it could not judge.
"""

from __future__ import annotations

import io
import json
import tarfile
import time
from dataclasses import dataclass, field
from typing import Any

from gaia2_contract import constants as contract
from gaia2_runner.config.endpoints import HOST_GATEWAY
from gaia2_runner.config.schema import DEFAULT_KEY_ENV
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.container_env import ca_bundle_files, container_env
from gaia2_runner.execution.plan import RunPlan
from gaia2_runner.execution.scenario_run import env_secrets
from gaia2_runner.output.scrub import Scrubber
from gaia2_runner.sandbox.container_logs import exit_text
from gaia2_runner.sandbox.engine import EngineUnavailable
from gaia2_runner.sandbox.sandbox import Sandbox
from gaia2_runner.text import one_line

PREFLIGHT_TIMEOUT_S = 30.0  # both requests' budget inside the container
EXIT_GRACE_S = 20.0  # on top: container start, interpreter, podman's cleanup
PREFLIGHT_ID = "preflight"  # its container's gaia2.scenario_id label (never a scenario's id)
RESULT_PATH = f"{contract.OUTPUT_DIR}/preflight.json"
RESULT_CAP = 1 << 20
# Instead of the daemon (the image's entrypoint): the interpreter on the image's PATH, the runtime's venv.
ENTRYPOINT = ["python3"]
COMMAND = ["-m", "gaia2_container.preflight", "--out", RESULT_PATH, "--timeout", f"{PREFLIGHT_TIMEOUT_S:g}"]
TARGETS = contract.PREFLIGHT_TARGETS  # the endpoints the check reports on (its result's keys)
EXPERTS = TARGETS[2]  # Agent2Agent's expert agents
SKIP_HINT = "pass --no-preflight ([run] preflight = false) to skip the check"
TOOLS_HINT = "vLLM: --enable-auto-tool-choice --tool-call-parser NAME; llama.cpp's llama-server: --jinja"


@dataclass
class PreflightReport:
    """What the check found when nothing was fatal: a line per endpoint that answered, warnings."""

    checked: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    skipped: str | None = None  # why no check ran ("": nothing worth saying, the oracle calls no model)


def skip_reason(plan: RunPlan) -> str | None:
    """Why this plan needs no check (None: it does)."""
    if plan.config.agent.provider == "oracle":
        return ""
    if not plan.config.run.preflight:
        return f"turned off ({plan.config.where('preflight')})"
    return None


def check_before_run(plan: RunPlan, sandbox: Sandbox) -> PreflightReport:
    """The check a run makes before its first scenario: none when no run is left to start (a
    finished job resumed), which then cannot fail on a server stopped since."""
    if not plan.selection().todo:
        return PreflightReport(skipped="no run left to start")
    return check_endpoints(plan, sandbox)


def check_endpoints(plan: RunPlan, sandbox: Sandbox) -> PreflightReport:
    """Run the check in a container on `sandbox`; raises Gaia2Error when an endpoint cannot work."""
    reason = skip_reason(plan)
    if reason is not None:
        return PreflightReport(skipped=reason)
    started = time.monotonic()
    env = container_env(
        None,
        scenario_timeout=PREFLIGHT_TIMEOUT_S,
        health_timeout=plan.health_timeout,
        runtime=plan.env.get(contract.ENV_RUNTIME),
        extra=plan.env,
    )
    scrub = Scrubber([*plan.secrets, *env_secrets(env)])
    image = plan.config.agent.image
    try:
        handle = sandbox.run_scenario_container(
            image,
            None,
            env,
            PREFLIGHT_ID,
            entrypoint=ENTRYPOINT,
            command=COMMAND,
            extra_files=ca_bundle_files(),
            output_dir=str(plan.output_dir.resolve()),
        )
    except EngineUnavailable:
        raise
    except Gaia2Error as exc:
        return _not_checked(image, exc.message, scrub, started)
    try:
        if not handle.wait_exited(PREFLIGHT_TIMEOUT_S + EXIT_GRACE_S):
            raise Gaia2Error(
                f"the endpoint check in {image} did not end within "
                f"{PREFLIGHT_TIMEOUT_S + EXIT_GRACE_S:g}s (is podman overloaded?): {SKIP_HINT}"
            )
        doc = _read_result(handle)
        why = "" if doc is not None else exit_text(handle)
    finally:
        handle.cleanup()
    if doc is None:
        return _not_checked(image, why, scrub, started)
    report = assess(scrub.value(doc), plan)
    report.seconds = round(time.monotonic() - started, 1)
    return report


def _not_checked(image: str, why: str, scrub: Scrubber, started: float) -> PreflightReport:
    return PreflightReport(
        warnings=[
            one_line(
                scrub.text(
                    f"preflight: {image} could not run the endpoint check ({why}): the model endpoints were not "
                    "checked before the first scenario"
                )
            )
        ],
        seconds=round(time.monotonic() - started, 1),
    )


def _read_result(handle: Any) -> dict[str, Any] | None:
    try:
        with tarfile.open(fileobj=io.BytesIO(handle.get_archive(RESULT_PATH))) as tar:
            member = next((m for m in tar.getmembers() if m.isfile() and m.size <= RESULT_CAP), None)
            data = tar.extractfile(member).read() if member is not None else b""  # type: ignore[union-attr]
        doc = json.loads(data)
    except Exception:  # noqa: BLE001 - no file, no archive, not JSON: the check did not run
        return None
    return doc if isinstance(doc, dict) else None


def assess(doc: dict[str, Any], plan: RunPlan) -> PreflightReport:
    """Turn the container's facts into a report; raises one Gaia2Error naming every endpoint that
    cannot work."""
    report = PreflightReport()
    problems: list[str] = []
    for target in TARGETS:
        endpoint = doc.get(target)
        if isinstance(endpoint, dict):
            _assess_one(Endpoint(target, endpoint, plan), report, problems)
    if problems:
        raise Gaia2Error(one_line("; ".join(problems), limit=4000))
    return report


class Endpoint:
    """One endpoint's facts with the words for them: which setting, which URL, which fix."""

    def __init__(self, target: str, facts: dict[str, Any], plan: RunPlan) -> None:
        self.target, self.facts, self.config = target, facts, plan.config
        url_setting, provider_setting, model_setting = _settings_of(self.config, target)
        self.where = self.config.where(url_setting or provider_setting)
        self.url = str(facts.get("base_url") or facts.get("url") or "the provider's default URL")
        self.model = str(facts.get("model") or "")
        self.model_where = self.config.where(model_setting)
        self.key_hint = _key_hint(self.config, target)

    @property
    def head(self) -> str:
        return f"{self.where} {self.url} ({self.target} endpoint)"

    def problem(self, probe: dict[str, Any]) -> str | None:
        """Why every scenario would fail with this answer, and the fix (None: it answered)."""
        status, failure, detail = (
            probe.get("status"),
            probe.get("failure"),
            one_line(str(probe.get("detail") or "")),
        )
        said = f" ({detail})" if detail else ""
        if failure == "settings":
            return f"{self.head}: the settings are unusable: {detail}"
        if failure == "connect":
            return f"{self.head}: {_connect_problem(detail)}"
        if failure == "timeout":
            return (
                f"{self.head}: no answer within {PREFLIGHT_TIMEOUT_S:g}s: check that the server is up and not "
                f"stuck; if it is only slow to wake up, {SKIP_HINT}"
            )
        if failure == "unreadable":
            return (
                f"{self.head}: answered HTTP {status} but not with JSON{said}: check the base URL (an "
                "OpenAI-compatible server's usually ends in /v1)"
            )
        if status in (401, 403):
            return f"{self.head}: HTTP {status}, the API key was refused{said}: check {self.key_hint}"
        if status == 404:
            return (
                f"{self.head}: HTTP 404 for model {self.model!r}{said}: check the model name "
                f"({self.model_where}) and the base URL's path (an OpenAI-compatible server's usually ends in /v1)"
            )
        if status == 429:
            return None
        if isinstance(status, int) and status >= 500:
            return (
                f"{self.head}: HTTP {status}, the server is failing{said}: if it is still starting, wait and "
                f"rerun, or {SKIP_HINT}"
            )
        if isinstance(status, int) and not 200 <= status < 300:
            return (
                f"{self.head}: HTTP {status}, the request was refused{said}: check the model name "
                f"({self.model_where}), the provider and the agent options"
            )
        return None


def _assess_one(endpoint: Endpoint, report: PreflightReport, problems: list[str]) -> None:
    probe = endpoint.facts.get("probe") or {}
    problem = endpoint.problem(probe)
    if problem is not None:
        problems.append(problem)
        return
    if probe.get("status") == 429:
        report.warnings.append(
            f"preflight: {endpoint.head} is rate limiting already (HTTP 429): the run goes on "
            "and its requests retry with backoff"
        )
        return
    tools = _tools_note(endpoint, problems, report)
    seconds = probe.get("seconds")
    report.checked.append(
        f"{endpoint.target} {endpoint.model} at {endpoint.url}: answers"
        + (f" in {seconds:g}s" if isinstance(seconds, (int, float)) else "")
        + tools
    )


def _tools_note(endpoint: Endpoint, problems: list[str], report: PreflightReport) -> str:
    """What the request offering a tool showed: a tool call (", tool calls: yes"), text only or a
    refusal (a warning, or an error when the agent sends tools with every request)."""
    facts, probe = endpoint.facts, endpoint.facts.get("tools_probe")
    if facts.get("tools") == "none" or not isinstance(probe, dict):
        return ""
    status, detail = probe.get("status"), one_line(str(probe.get("detail") or ""))
    if probe.get("failure") is None and isinstance(status, int) and 200 <= status < 300:
        if probe.get("tool_call"):
            return ", tool calls: yes"
        report.warnings.append(
            f"preflight: {endpoint.head}: the model answered a request offering one tool with text, not a tool "
            f"call: an agent relying on native tool calls may get none ({TOOLS_HINT}); text-format agents can "
            "still work"
        )
        return ", tool calls: text only"
    if isinstance(status, int) and 400 <= status < 500 and status != 429:
        refused = (
            f"{endpoint.head}: HTTP {status} for a request offering a tool ({detail}): the server does not "
            f"accept tool definitions"
        )
        if facts.get("tools") == "required":
            problems.append(
                f"{refused}, which this agent sends with every request: enable tool calling on the "
                f"server ({TOOLS_HINT})"
            )
        else:
            report.warnings.append(f"preflight: {refused}")
        return ", tool calls: refused"
    report.warnings.append(
        f"preflight: {endpoint.head}: the request offering a tool failed "
        f"({probe.get('failure') or f'HTTP {status}'}): tool calls not checked"
    )
    return ", tool calls: not checked"


def _connect_problem(detail: str) -> str:
    lowered = detail.lower()
    if "refused" in lowered:
        return (
            "connection refused from inside the scenario container: start the model server, check the port, "
            "and make it listen on 0.0.0.0 (not only 127.0.0.1)"
        )
    if any(
        word in lowered
        for word in (
            "name or service not known",
            "name resolution",
            "nodename",
            "getaddrinfo",
            "no address associated",
        )
    ):
        return (
            f"the host name does not resolve inside the scenario container ({detail}): fix it "
            f"(this machine is {HOST_GATEWAY} from a container)"
        )
    return (
        f"cannot connect from inside the scenario container ({detail}): check the URL, that the server runs, "
        "and any proxy (HTTPS_PROXY, NO_PROXY)"
    )


def _settings_of(config: Any, target: str) -> tuple[str | None, str, str]:
    """The settings behind a target's endpoint, as the user set them: (its base URL's, None when
    not set; its provider's; its model's). The expert agents' fall back to the agent's, as in the
    container (A2ASettings)."""
    agent, judge = config.agent, config.judge
    if target == "judge":
        return ("judge_base_url" if judge.base_url else None), "judge_provider", "judge_model"
    if target == EXPERTS:
        own = agent.a2a_provider not in (None, agent.provider)
        url = (
            "a2a_base_url" if agent.a2a_base_url else None if own else "base_url" if agent.base_url else None
        )
        return url, ("a2a_provider" if own else "provider"), ("a2a_model" if agent.a2a_model else "model")
    return ("base_url" if agent.base_url else None), "provider", "model"


def _key_hint(config: Any, target: str) -> str:
    """Where the key that was sent came from, as the user set it."""
    if target == EXPERTS and config.agent.a2a_provider not in (None, config.agent.provider):
        env = DEFAULT_KEY_ENV.get(config.agent.a2a_provider or "")
        return (
            f"the key in {env} (the expert agents' provider's)"
            if env
            else "the expert agents' provider's key"
        )
    section = config.agent if target in ("agent", EXPERTS) else config.judge
    prefix = "judge_" if target == "judge" else ""
    if section.api_key:
        return f"the key given with {config.where(prefix + 'api_key')}"
    if section.api_key_env:
        return f"the key in {section.api_key_env} ({config.where(prefix + 'api_key_env')})"
    default_env = DEFAULT_KEY_ENV.get(section.provider or "")
    if default_env:
        return f"the key in {default_env}"
    return f"the key: none is configured, set one with {config.where(prefix + 'api_key_env')}"
