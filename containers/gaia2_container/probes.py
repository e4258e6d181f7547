"""One-shot requests to a model endpoint, as the runner checks it: the preflight's probes of the
agent's and the experts' endpoints (preflight.py) and the daemon's own probe of a provider the
agent's traffic suspects (daemon/provider/probe.py). One attempt, no retry, no trace; every key
scrubbed from what the server says."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx

from gaia2_contract import constants as contract
from gaia2_contract import harness_profile, urls

from .runtimes.harness.profile import PROFILE_PATH
from .runtimes.llm.messages import Message
from .runtimes.llm.providers import make_provider
from .runtimes.llm.providers.anthropic import AnthropicProvider
from .runtimes.llm.providers.gemini import GeminiProvider
from .runtimes.llm.providers.openai_chat import ChatCompletionsProvider
from .runtimes.llm.providers.openai_responses import ResponsesProvider
from .runtimes.llm.settings import Options, Settings, SettingsError
from .runtimes.llm.trace import Redactor, public_url

# Every probe carries this text: tests/support/fake_llm answers such requests itself, outside its script.
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
    tools = _agent_tools(runtime, custom)
    try:
        if wire in WIRES:  # the relay forwards to GAIA2_AGENT_BASE_URL or the SDK's own root
            llm, base = _harness_provider(env, provider, model, wire, transport)
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


def _agent_tools(runtime: str, custom: bool) -> str:
    """How the agent calls tools: "required" (natively, a refusal is fatal), "none" (as text), or
    "optional" (a custom command: its business)."""
    if custom:
        return "optional"
    if runtime in BUILTIN_AGENT_RUNTIMES:
        return "required"
    return "none" if runtime in TEXT_ACTION_RUNTIMES else "optional"


def _harness_provider(
    env: Mapping[str, str], provider: str, model: str, wire: str, transport: OneShot
) -> tuple[Any, str]:
    """The provider object for a harness's wire, and its base URL (SettingsError when it has none)."""
    base = (env.get(contract.ENV_AGENT_BASE_URL) or urls.SDK_BASE_URLS.get(provider, "")).strip().rstrip("/")
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
    return llm, base


def agent_text_probe(env: Mapping[str, str], deadline: float, redact: Callable[[str], str]) -> Probe:
    """The agent endpoint's text request alone, as check_agent sends it: the daemon's probe
    (daemon/provider/probe.py) asks it when the agent's traffic suggests a provider fault."""
    transport = OneShot(deadline, redact)
    setup = agent_setup(env, transport)
    if setup is None:
        return Probe(None, "settings", "no agent provider is configured")
    if isinstance(setup, Endpoint):
        return setup.probe or Probe(None, "settings", "unusable agent settings")
    return text_probe(setup[0], transport)


def experts_text_probe(
    provider: str, model: str, base: str, key: str | None, deadline: float, redact: Callable[[str], str]
) -> Probe:
    """The expert agents' text request, as check_experts sends it (the daemon's probe asks it too)."""
    transport = OneShot(deadline, redact)
    llm = ChatCompletionsProvider(
        Settings(provider, model, base, key, Options(max_tokens=TEXT_MAX_TOKENS)), transport, name=provider
    )
    return text_probe(llm, transport)


def text_probe(llm: Any, transport: OneShot) -> Probe:
    probe = ask_probe(lambda: llm.complete([Message("user", TEXT_PROMPT)], []))
    probe.url = public_url(transport.url)
    return probe


def ask_probe(call: Any, tools: bool = False) -> Probe:
    started = time.monotonic()
    try:
        reply = call()
    except ProbeFailed as exc:
        probe = exc.probe
    else:
        probe = Probe(200, tool_call=bool(reply.tool_calls) if tools else None)
    probe.seconds = round(time.monotonic() - started, 2)
    return probe


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
