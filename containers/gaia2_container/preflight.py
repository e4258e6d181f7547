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
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import httpx

from gaia2_contract import constants as contract
from gaia2_contract import harness_profile, providers, urls

from .daemon.a2a import A2AError, A2ASettings
from .daemon.judge.engine import LiteLLMJudgeEngine, build_judge_engine
from .daemon.relay.experts import upstream_of
from .runtimes.harness.profile import PROFILE_PATH
from .runtimes.llm.messages import Message, Tool
from .runtimes.llm.providers import make_provider
from .runtimes.llm.providers.anthropic import AnthropicProvider
from .runtimes.llm.providers.gemini import GeminiProvider
from .runtimes.llm.providers.openai_chat import ChatCompletionsProvider
from .runtimes.llm.providers.openai_responses import ResponsesProvider
from .runtimes.llm.settings import Options, Settings, SettingsError
from .runtimes.llm.trace import Redactor, public_url

# Every probe carries this text: tests/support/fake_llm answers such requests itself, outside its script.
AGENT, JUDGE, EXPERTS = contract.PREFLIGHT_TARGETS
PROBE_MARKER = "gaia2-runner preflight"
PROBE_TOOL = "gaia2_preflight_ping"
TEXT_PROMPT = f"{PROBE_MARKER}: reply with the single word OK."
TOOL_PROMPT = f"{PROBE_MARKER}: call the tool {PROBE_TOOL} now, with no arguments."
TEXT_MAX_TOKENS = 8  # enough to answer; a reasoning model may spend them all, which is still an answer
TOOL_MAX_TOKENS = 128  # room for one tool call
DETAIL_CHARS = 300
MIN_REQUEST_S = 1.0
# A harness's wire (profile.toml `wire`) -> the provider class speaking it and the path its SDK puts
# after the base URL before the provider's own route (Claude Code: {base}/v1/messages).
WIRES = {  # keys: harness_profile.WIRES
    "openai-chat": (ChatCompletionsProvider, ""),
    "openai-responses": (ResponsesProvider, ""),
    "anthropic": (AnthropicProvider, "/v1"),
    "gemini": (GeminiProvider, "/v1beta"),
}
BUILTIN_AGENT_RUNTIMES = ("agent", "harness")  # agents that call tools natively: a refusal is fatal
TEXT_ACTION_RUNTIMES = ("are-default",)  # ARE's default agent writes its actions as text: no tool probe
# LiteLLM providers (judge.engine.LITELLM_PROVIDERS values) that speak OpenAI Chat Completions,
# with LiteLLM's default base URL for each.
JUDGE_OPENAI_URLS = {name: urls.API_BASE_URLS[name] for name in (providers.OPENAI, providers.OPENROUTER)}


@dataclass
class Probe:
    """One request: its HTTP status (None: no answer), why there was none, the server's words."""

    status: int | None
    failure: str | None = None  # "connect", "timeout", "unreadable" (2xx, not JSON), "settings"
    detail: str = ""
    tool_call: bool | None = None  # tool probes answered 2xx: did a tool call come back?
    seconds: float = 0.0
    url: str = ""  # where the request went (no credentials): the daemon's probe words it

    @property
    def ok(self) -> bool:
        return self.failure is None and self.status is not None and 200 <= self.status < 300


@dataclass
class Endpoint:
    target: str  # "agent", "judge" or EXPERTS
    base_url: str  # as configured (or the provider's default), without credentials
    url: str  # what the request went to
    model: str
    wire: str
    tools: str  # "required" (native tool calls), "optional", "none" (the judge)
    probe: Probe | None = None
    tools_probe: Probe | None = None


class ProbeFailed(Exception):
    def __init__(self, probe: Probe) -> None:
        super().__init__(probe.detail)
        self.probe = probe


class OneShot:
    """The provider classes' transport, for a probe: one attempt, no retry, no trace."""

    def __init__(self, deadline: float, redact: Callable[[str], str]) -> None:
        self.deadline, self.redact, self.url = deadline, redact, ""

    def post(
        self, url: str, body: dict[str, Any], headers: dict[str, str], read: Callable[[Any], Any]
    ) -> Any:
        """As Transport.post: `read` of the JSON answer; ProbeFailed instead of retries."""
        self.url = url
        timeout = max(MIN_REQUEST_S, self.deadline - time.monotonic())
        try:
            with httpx.Client(timeout=httpx.Timeout(timeout)) as client:
                resp = client.post(url, json=body, headers=headers)
        except httpx.TimeoutException:
            raise ProbeFailed(Probe(None, "timeout", f"no answer within {timeout:.0f}s")) from None
        except httpx.HTTPError as exc:
            raise ProbeFailed(Probe(None, "connect", self._detail(f"{type(exc).__name__}: {exc}"))) from None
        if not 200 <= resp.status_code < 300:
            raise ProbeFailed(Probe(resp.status_code, None, self._detail(resp.text)))
        try:
            return read(resp.json())
        except (ValueError, TypeError, AttributeError, KeyError, IndexError):
            raise ProbeFailed(Probe(resp.status_code, "unreadable", self._detail(resp.text))) from None

    def _detail(self, text: str) -> str:
        return self.redact(" ".join(server_words(text).split())[:DETAIL_CHARS])


def server_words(text: str) -> str:
    """The message of an error body in any provider's shape ({"error": {"message"}}, {"error": "…"},
    {"message"}, {"detail"}), else the text itself."""
    try:
        doc = json.loads(text)
    except ValueError:
        return str(text)
    if isinstance(doc, list) and doc:  # Gemini may wrap its error in a list
        doc = doc[0]
    if isinstance(doc, dict):
        error = doc.get("error")
        for found in (
            (error or {}).get("message") if isinstance(error, dict) else error,
            doc.get("message"),
            doc.get("detail"),
        ):
            if isinstance(found, str) and found.strip():
                return found
    return str(text)


def harness_wire(path: Path | None = None) -> str | None:
    """The `wire` of this image's harness profile (None: no readable profile)."""
    try:
        return harness_profile.read(path or PROFILE_PATH).get("wire")
    except harness_profile.ProfileError:
        return None


def agent_setup(env: Mapping[str, str], transport: OneShot) -> tuple[Any, Endpoint] | Endpoint | None:
    """The provider object and the endpoint to check for the configured agent (None: no model
    agent); an Endpoint alone when its settings are unusable (its probe says why)."""
    provider = (env.get(contract.ENV_AGENT_PROVIDER) or "").strip().lower()
    if not provider:
        return None
    runtime = env.get(contract.ENV_RUNTIME, "")
    custom = bool(env.get(contract.ENV_AGENT_COMMAND))
    model = (env.get(contract.ENV_AGENT_MODEL) or "").strip()
    wire = harness_wire() if runtime == "harness" and not custom else None
    tools = (
        "optional"
        if custom
        else "required"
        if runtime in BUILTIN_AGENT_RUNTIMES
        else "none"
        if runtime in TEXT_ACTION_RUNTIMES
        else "optional"
    )
    try:
        if wire in WIRES:  # the relay forwards to GAIA2_AGENT_BASE_URL or the SDK's own root
            base = (
                (env.get(contract.ENV_AGENT_BASE_URL) or urls.SDK_BASE_URLS.get(provider, ""))
                .strip()
                .rstrip("/")
            )
            if not base:
                raise SettingsError(f"{contract.ENV_AGENT_BASE_URL} is required for provider {provider}")
            cls, prefix = WIRES[wire]
            settings = Settings(
                provider,
                model,
                base + prefix,
                env.get(contract.ENV_AGENT_API_KEY) or None,
                Options(max_tokens=TOOL_MAX_TOKENS),
            )
            llm = (
                cls(settings, transport, name=provider)
                if cls is ChatCompletionsProvider
                else cls(settings, transport)
            )
        else:
            # The built-in runtime's options matter (api, extra_body, anthropic_version); another
            # agent's GAIA2_AGENT_OPTIONS are its own business.
            own = env if runtime == "agent" and not custom else {**env, contract.ENV_AGENT_OPTIONS: ""}
            settings = Settings.from_env(own)
            settings.options = replace(settings.options, max_tokens=TOOL_MAX_TOKENS)
            llm = make_provider(settings, transport)
            base = settings.base_url
            wire = {"ResponsesProvider": "openai-responses", "ChatCompletionsProvider": "openai-chat"}.get(
                type(llm).__name__, provider
            )
    except (SettingsError, ValueError) as exc:
        base = env.get(contract.ENV_AGENT_BASE_URL) or ""
        return Endpoint(
            "agent",
            public_url(base),
            "",
            model,
            wire or provider,
            tools,
            probe=Probe(None, "settings", str(exc)),
        )
    return llm, Endpoint("agent", public_url(base), "", model, str(wire), tools)


def check_agent(env: Mapping[str, str], deadline: float, redact: Callable[[str], str]) -> Endpoint | None:
    transport = OneShot(deadline, redact)
    setup = agent_setup(env, transport)
    if setup is None or isinstance(setup, Endpoint):
        return setup
    llm, endpoint = setup
    endpoint.probe = _text(llm, transport)
    endpoint.url = endpoint.probe.url
    if endpoint.probe.ok and endpoint.tools != "none":
        tool = Tool(PROBE_TOOL, "Answers pong. Call it when asked to.", {"type": "object", "properties": {}})
        endpoint.tools_probe = _ask(lambda: llm.complete([Message("user", TOOL_PROMPT)], [tool]), tools=True)
    return endpoint


def agent_text_probe(env: Mapping[str, str], deadline: float, redact: Callable[[str], str]) -> Probe:
    """The agent endpoint's text request alone, as check_agent sends it: the daemon's probe
    (daemon/provider/probe.py) asks it when the agent's traffic suggests a provider fault."""
    transport = OneShot(deadline, redact)
    setup = agent_setup(env, transport)
    if setup is None:
        return Probe(None, "settings", "no agent provider is configured")
    if isinstance(setup, Endpoint):
        return setup.probe or Probe(None, "settings", "unusable agent settings")
    return _text(setup[0], transport)


def experts_text_probe(
    provider: str, model: str, base: str, key: str | None, deadline: float, redact: Callable[[str], str]
) -> Probe:
    """The expert agents' text request, as check_experts sends it (the daemon's probe asks it too)."""
    transport = OneShot(deadline, redact)
    llm = ChatCompletionsProvider(
        Settings(provider, model, base, key, Options(max_tokens=TEXT_MAX_TOKENS)), transport, name=provider
    )
    return _text(llm, transport)


def _text(llm: Any, transport: OneShot) -> Probe:
    probe = _ask(lambda: llm.complete([Message("user", TEXT_PROMPT)], []))
    probe.url = public_url(transport.url)
    return probe


def _ask(call: Any, tools: bool = False) -> Probe:
    started = time.monotonic()
    try:
        reply = call()
    except ProbeFailed as exc:
        probe = exc.probe
    else:
        probe = Probe(200, tool_call=bool(reply.tool_calls) if tools else None)
    probe.seconds = round(time.monotonic() - started, 2)
    return probe


def check_judge(env: Mapping[str, str], deadline: float, redact: Callable[[str], str]) -> Endpoint | None:
    """The judge as the daemon's judge engine calls it (same model, provider, URL, key). LiteLLM's
    OpenAI-wire providers POST {base}/chat/completions, which the chat provider class sends here
    without LiteLLM's import (seconds); Anthropic and Gemini judges go through LiteLLM itself."""
    engine = build_judge_engine(dict(env))
    if not isinstance(engine, LiteLLMJudgeEngine):
        return None
    base = (engine.base_url or JUDGE_OPENAI_URLS.get(engine.provider, "")).rstrip("/")
    endpoint = Endpoint(
        "judge", public_url(base), public_url(base), engine.model, f"litellm:{engine.provider}", "none"
    )
    if base and engine.provider in JUDGE_OPENAI_URLS:
        transport = OneShot(deadline, redact)
        settings = Settings(
            engine.provider, engine.model, base, engine.api_key, Options(max_tokens=TEXT_MAX_TOKENS)
        )
        # OpenAI's own API refuses max_tokens for its reasoning models (the judge sends no limit at
        # all): the probe sends max_completion_tokens there, max_tokens to compatible servers.
        own_api = engine.provider == "openai" and not engine.base_url
        llm = ChatCompletionsProvider(settings, transport, name="openai" if own_api else "openai-compat")
        endpoint.probe = _ask(lambda: llm.complete([Message("user", TEXT_PROMPT)], []))
        endpoint.url = public_url(transport.url)
        return endpoint
    started = time.monotonic()
    try:
        import litellm

        litellm.completion(
            model=engine.model,
            custom_llm_provider=engine.provider,
            api_base=engine.base_url,
            api_key=engine.api_key,
            messages=[{"role": "user", "content": TEXT_PROMPT}],
            max_tokens=TEXT_MAX_TOKENS,
            num_retries=0,
            timeout=max(MIN_REQUEST_S, deadline - time.monotonic()),
        )
        probe = Probe(200)
    except Exception as exc:  # noqa: BLE001 - every LiteLLM failure is a fact to report
        probe = _litellm_probe(exc, redact)
    probe.seconds = round(time.monotonic() - started, 2)
    endpoint.probe = probe
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


def _litellm_probe(exc: Exception, redact: Callable[[str], str]) -> Probe:
    import litellm

    detail = redact(" ".join(str(exc).split())[:DETAIL_CHARS])
    if isinstance(exc, litellm.Timeout):  # a subclass of APIConnectionError: first
        return Probe(None, "timeout", detail)
    status = getattr(exc, "status_code", None)
    if isinstance(exc, litellm.APIConnectionError) or not isinstance(status, int):
        return Probe(None, "connect", detail)
    return Probe(status, None, detail)


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


def scrub_for(env: Mapping[str, str]) -> Scrub:
    """Every key of the run's settings out of a text."""
    return Scrub(
        [
            env.get(contract.ENV_AGENT_API_KEY),
            env.get(contract.ENV_JUDGE_API_KEY),
            env.get(contract.ENV_A2A_API_KEY),
        ]
    )


class Scrub:
    """Every key out of a text (the runtime's Redactor holds one)."""

    def __init__(self, secrets: list[str | None]) -> None:
        self.parts = [Redactor(s) for s in secrets if s]

    def __call__(self, text: str) -> str:
        for part in self.parts:
            text = part(text)
        return text


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
