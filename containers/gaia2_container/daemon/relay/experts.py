"""The expert sub-agents' model relay (Agent2Agent): a second relay, on its own loopback port,
in front of the sub-agents' provider (GAIA2_A2A_*, default: the agent's).

The sub-agents run in the daemon (ARE's AppAgent, daemon/a2a.py); the relay is how their calls
reach the provider, as the agent's do (proxy.py): the key is swapped in for a per-run placeholder
only the daemon holds, the provider's answers feed a ledger (a failing provider is an
infrastructure error, never the model's failure), and each call is recorded, here into
events.jsonl as an `llm_call` nested under the agent's `expert_agent` call that caused it.

The agent can reach every loopback port, this one included. A request without the sub-agents'
placeholder is refused before anything is forwarded or recorded: the agent can neither spend the
sub-agents' key, nor write calls into the trace in their name. As on the agent's relay, model calls
go only to the configured model (here the experts': body.py), and their reservations count
in the token budget the daemon has this ledger share with the agent's (provider/token_budget.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from gaia2_contract import constants as contract
from gaia2_contract import urls

from ... import budget
from ...jsonable import json_text
from ..a2a import SCENARIO_OVER, A2AError
from ..provider.faults import RunnerSetup
from ..provider.ledger import ProviderLedger
from ..provider.probe import experts_probe
from .handler import RelayHandler, send_json, serve_relay
from .key import CREDENTIAL_HEADERS, RunCredential, new_placeholder
from .proxy import REFUSED_TYPE, Relay
from .trace import RelayTrace

log = logging.getLogger("gaia2.a2a_relay")

NOT_SUB_AGENT_STATUS = 403
JUDGING_STATUS = 403  # final for every client: a sub-agent stopped for the judgment does not retry


class SubAgentRelay(Relay):
    """A relay that forwards only the sub-agents' own requests (those carrying their placeholder),
    and none once the final judgment has started (refuse_all)."""

    judging = False

    def refuse_all(self) -> None:
        """The final judgment starts (ExpertAgents.stop): no sub-agent model call leaves after it."""
        self.judging = True

    def forward(self, handler: RelayHandler) -> None:
        assert self.credential is not None
        if self.judging:
            log.info("refused %s %.200r: the final judgment has started", handler.command, handler.path)
            send_json(
                handler,
                JUDGING_STATUS,
                {"error": {"type": REFUSED_TYPE, "message": f"gaia2 relay: {SCENARIO_OVER}"}},
            )
            return
        sent = [v for k, v in handler.headers.items() if k.lower() in CREDENTIAL_HEADERS]
        if not any(self.credential.placeholder in value for value in sent):
            log.info(
                "refused %s %.200r: not the expert sub-agents' credential", handler.command, handler.path
            )
            send_json(
                handler,
                NOT_SUB_AGENT_STATUS,
                {
                    "error": {
                        "type": REFUSED_TYPE,
                        "message": "gaia2 relay: this relay serves the daemon's expert agents only",
                    }
                },
            )
            return
        super().forward(handler)


class EventsTrace(RelayTrace):
    """RelayTrace's `llm_call` entries, written into events.jsonl with the nesting `parent()` gives
    (the `expert_agent` call in progress) instead of into a file."""

    def __init__(self, provider: str | None, write: Callable[[dict[str, Any]], None]) -> None:
        super().__init__(path=None, provider=provider)  # type: ignore[arg-type]
        self._write = write

    def _append(self, entry: dict[str, Any]) -> None:
        """Under the same cap as trace.jsonl (the sub-agent's prompts grow with its steps): past it,
        one `llm_call` line with the cap's message as its `error`, then nothing more."""
        fields = {k: v for k, v in entry.items() if k != "type"}
        with self._lock:
            if self._closed:
                return
            admitted = self._admit(len(json_text(fields).encode("utf-8")))
            if admitted is None:
                return
            if not admitted:
                fields = {"timestamp": round(time.time(), 3), "error": self.cap_message()}
            self._write(fields)


def upstream_of(provider: str, base_url: str | None) -> str:
    """Where the sub-agents' calls go: the base URL given, else the provider's usual one."""
    return (base_url or urls.API_BASE_URLS.get(provider, "")).strip().rstrip("/")


def start(
    provider: str,
    model: str | None,
    base_url: str | None,
    key: str | None,
    environ: Any,
    write: Callable[[dict[str, Any]], None],
    on_fault: Callable[[str], None],
    on_change: Callable[[dict[str, Any]], None] | None = None,
    port: int = contract.A2A_RELAY_PORT,
    token_budget: int | None = None,
    on_budget: Callable[[str], None] | None = None,
) -> tuple[SubAgentRelay, str, str]:
    """Serve the sub-agents' relay; returns it, the placeholder the sub-agents send as their key and
    the relay's URL (`port` 0: any free port, for tests). `token_budget`: the run's, which the
    daemon has this relay's ledger share with the agent's (ProviderLedger.share_budget)."""
    credential = RunCredential(new_placeholder(), key)
    setup = RunnerSetup(
        model=model, agent_key=credential.placeholder, keyless=key is None, keyless_placeholders=frozenset()
    )
    upstream = upstream_of(provider, base_url)
    probe = experts_probe(provider, model, upstream, key, environ)  # the runner's own request to it
    ledger = ProviderLedger(
        setup,
        token_budget=token_budget,
        on_change=on_change,
        on_fault=on_fault,
        on_budget=on_budget,
        paced=True,
        probe=probe,
    )  # one call at a time
    timeout = budget.relay_timeout(budget.scenario_timeout(environ))
    relay = SubAgentRelay(
        upstream, timeout_s=timeout, ledger=ledger, credential=credential, trace=EventsTrace(provider, write)
    )
    try:
        server = serve_relay(relay, "127.0.0.1", port)
    except OSError as exc:  # the port is taken (or loopback unusable): the run's one-line error
        raise A2AError(f"the expert agents' model relay cannot listen on 127.0.0.1:{port}: {exc}") from exc
    return relay, credential.placeholder, f"http://127.0.0.1:{server.server_address[1]}"
