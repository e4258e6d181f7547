"""`python -m gaia2_container.preflight --out FILE --timeout S`: before a job's first scenario, one
tiny request to the agent's model endpoint, one to the judge's and one to the expert agents' (when
Agent2Agent has one of its own), from inside the scenario image with the scenario's own settings
(network, proxies, CA bundle, GAIA2_AGENT_* / GAIA2_JUDGE_* / GAIA2_A2A_*).

The runner starts it instead of the daemon (gaia2_runner/execution/preflight.py): no scenario, no
agent code. The agent's request speaks the agent's wire format through the built-in runtime's own
provider classes (a harness's wire from its profile, as the daemon's relay would forward it); the
judge's goes through LiteLLM with the judge engine's own settings. It writes facts, not advice:
per endpoint the URL (no credentials), the HTTP status or why there was none, and whether a
request offering one tool got a tool call back. The runner words them. Keys go only into the
provider's headers and are scrubbed from every detail written.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

from gaia2_contract import constants as contract

from .daemon.a2a import A2AError, A2ASettings
from .daemon.judge import check_judge
from .daemon.relay import upstream_of
from .probes import (
    PROBE_MARKER,
    PROBE_TOOL,
    TOOL_PROMPT,
    Endpoint,
    OneShot,
    Probe,
    agent_setup,
    ask_probe,
    experts_text_probe,
    scrub_for,
    text_probe,
)
from .runtimes.llm.messages import Message, Tool
from .runtimes.llm.trace import public_url

__all__ = ["PROBE_MARKER", "Probe", "check_agent", "check_experts", "check_judge", "main", "run"]

AGENT, JUDGE, EXPERTS = contract.PREFLIGHT_TARGETS


def check_agent(env: Mapping[str, str], deadline: float, redact: Callable[[str], str]) -> Endpoint | None:
    transport = OneShot(deadline, redact)
    setup = agent_setup(env, transport)
    if setup is None or isinstance(setup, Endpoint):
        return setup
    llm, endpoint = setup
    endpoint.probe = text_probe(llm, transport)
    endpoint.url = endpoint.probe.url
    if endpoint.probe.ok and endpoint.tools != "none":
        tool = Tool(PROBE_TOOL, "Answers pong. Call it when asked to.", {"type": "object", "properties": {}})
        endpoint.tools_probe = ask_probe(
            lambda: llm.complete([Message("user", TOOL_PROMPT)], [tool]), tools=True
        )
    return endpoint


def check_experts(env: Mapping[str, str], deadline: float, redact: Callable[[str], str]) -> Endpoint | None:
    """Agent2Agent's expert agents' endpoint, when it is not simply the agent's (a provider, URL or
    model of their own): one text request as their relay would forward it (ARE's app agent sends
    no tool definitions)."""
    if not any(
        (env.get(v) or "").strip()
        for v in (contract.ENV_A2A_PROVIDER, contract.ENV_A2A_BASE_URL, contract.ENV_A2A_MODEL)
    ):
        return None
    try:
        settings = A2ASettings.from_env(env)
    except A2AError as exc:
        return Endpoint(EXPERTS, "", "", "", "openai-chat", "none", probe=Probe(None, "settings", str(exc)))
    if settings is None or env.get(contract.ENV_RUNTIME) == "oracle":
        return None
    base = upstream_of(settings.provider, settings.base_url)
    endpoint = Endpoint(EXPERTS, public_url(base), "", settings.model, "openai-chat", "none")
    endpoint.probe = experts_text_probe(
        settings.provider, settings.model, base, settings.key, deadline, redact
    )
    endpoint.url = endpoint.probe.url
    return endpoint


def run(env: Mapping[str, str], budget_s: float) -> dict[str, Any]:
    """The checks at once, within `budget_s` seconds in all."""
    started = time.monotonic()
    deadline = started + budget_s
    redact = scrub_for(env)
    checks = {AGENT: check_agent, JUDGE: check_judge, EXPERTS: check_experts}
    with ThreadPoolExecutor(max_workers=len(checks)) as pool:
        futures = {name: pool.submit(check, env, deadline, redact) for name, check in checks.items()}
        found = {name: future.result() for name, future in futures.items()}
    return {name: asdict(endpoint) if endpoint else None for name, endpoint in found.items()} | {
        "seconds": round(time.monotonic() - started, 2)
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check the agent's and the judge's model endpoints.")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--timeout", type=float, required=True)
    args = parser.parse_args(argv)
    doc = run(os.environ, args.timeout)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
