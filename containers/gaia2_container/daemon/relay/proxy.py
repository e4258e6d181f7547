"""The model relay: the agent's LLM requests pass through the daemon on their way to the provider.

It runs in the daemon (root), so the agent can use it but not alter it or what it records. It is
the runner's own witness of provider failures: an agent that exits saying "the provider is down"
is believed only when the relay saw the provider fail (docs/reference/container-contract.md). Bodies are
passed through byte for byte (streams included), in both directions, except that the relay asks
the provider for an uncompressed answer (`Accept-Encoding: identity`) so that its record is
readable, that the run's credential goes in for the agent's placeholder (key.py), and that a
streamed Chat Completions request is made to ask for its usage (`stream_options.include_usage`,
body.py: the one body rewrite; the agent then gets one more final chunk, with the usage).
Only provider API paths are forwarded (provider/paths.py), and model calls only to the run's configured
model (body.py): anything else is refused before it leaves. The token budget is held before a
call leaves and charged when it ends (provider/token_budget.py). With a `RelayTrace` it also records every
forwarded call, as sent, into the run's trace.jsonl (trace.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import httpx

from ... import budget
from ...runtimes.llm.trace import public_url
from ..provider.faults import Request
from ..provider.ledger import ProviderLedger
from ..provider.outcome import BURST_LIMIT, BURST_WINDOW_S, UNAVAILABLE_STREAK, Call, Outcome  # noqa: F401
from ..provider.paths import is_model_call, refusal
from .body import model_refusal, parse, with_stream_usage
from .handler import MAX_REQUEST_BYTES, RelayHandler, agent_hung_up, read_chunked, request_facts, send_json
from .key import RunCredential
from .trace import Capture, RelayTrace

log = logging.getLogger("gaia2.relay")

# Hop-by-hop headers (RFC 9110 7.6.1) and those the relay recomputes.
_DROP_REQUEST = {
    "host",
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "upgrade",
    "transfer-encoding",
    "content-length",
    "accept-encoding",
}
_DROP_RESPONSE = _DROP_REQUEST - {"accept-encoding"}
USAGE_TAIL_BYTES = 64 << 10  # the end of a long stream, where its usage is reported
BUDGET_REFUSAL_STATUS = 400  # final for every client: a refused call past the budget is not retried
REFUSED_TYPE = "gaia2_relay_refused"  # error.type of a request the relay does not forward
MODEL_REFUSAL_STATUS = 400  # the agent's own request: final, and no evidence against the provider
# Told each call's outcome and the simulated clock's view of it ({} without a clock); its result is unused.
RecordOutcome = Callable[[Outcome, dict[str, Any]], object]


class Relay:
    """Forwards each request on a provider API path to `upstream` + the same path and query, with
    the `credential` swapped in for the agent's placeholder, and keeps the `ledger` of what the
    provider answered. `paths`: the refusal rule (relay_paths.refusal; tests of the trace widen it)."""

    def __init__(
        self,
        upstream: str,
        record: RecordOutcome | None = None,
        timeout_s: float = budget.RELAY_TIMEOUT_S,
        trace: RelayTrace | None = None,
        ledger: ProviderLedger | None = None,
        credential: RunCredential | None = None,
        paths: Callable[[str], tuple[int, str] | None] = refusal,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.credential = credential
        self.paths = paths
        self.record = record
        self.trace = trace
        self.ledger = ledger or ProviderLedger()
        # The simulated clock's hook (daemon/clock/generation.py, set by the daemon once the
        # scenario runs): `begin()` as a model call leaves, its span's `end()` when it is over.
        self.generation: Any = None
        self.client = httpx.Client(
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 30.0)), follow_redirects=False
        )

    def provider_unavailable(self) -> str | None:
        """The ledger's witness: why the provider counts as unavailable, else None."""
        return self.ledger.provider_unavailable()

    def _remember(self, outcome: Outcome, sim: dict[str, Any]) -> None:
        if self.record is not None:
            try:
                self.record(outcome, sim)
            except Exception:  # noqa: BLE001 - recording must never break the agent's call
                log.exception("recording a relay outcome failed")

    def forward(self, handler: RelayHandler) -> None:
        method = handler.command
        length = int(handler.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BYTES:
            handler.send_error(413, "request too large for the relay")
            return
        path_refused = self.paths(handler.path)
        if path_refused is not None:
            # Only API paths below the configured endpoint: "@host/…", "/v1/../x" or "%2e%2e" would
            # reach other pages or hosts, whose answers could fake a provider outage.
            status, why = path_refused
            log.info("refused %s %.200r: %s", method, handler.path, why)
            send_json(handler, status, {"error": {"type": REFUSED_TYPE, "message": f"gaia2 relay: {why}"}})
            return
        chunked = "chunked" in (handler.headers.get("Transfer-Encoding") or "").lower()
        body = read_chunked(handler) if chunked else handler.rfile.read(length) if length else b""
        if body is None:
            handler.send_error(413 if chunked else 400, "request too large or badly chunked for the relay")
            return
        parsed, repeated = parse(body)
        facts = request_facts(handler, parsed)
        refused: str | None = model_refusal(self.ledger.setup.model, facts, repeated)
        if refused is not None:  # never forwarded, never traced: counted (`refused_model`) and logged
            log.info("refused %s %.200r: %s", method, handler.path, refused)
            self.ledger.refuse_model()
            send_json(
                handler,
                MODEL_REFUSAL_STATUS,
                {"error": {"type": REFUSED_TYPE, "message": f"gaia2 relay: {refused}"}},
            )
            return
        body = with_stream_usage(facts, body)
        refused = self.ledger.reserve(facts, len(body))
        if refused is not None:
            send_json(
                handler,
                BUDGET_REFUSAL_STATUS,
                {"error": {"type": "gaia2_token_budget_exhausted", "message": f"gaia2 relay: {refused}"}},
            )
            return
        url = public_url(self.upstream + handler.path)  # what records say: no credential in it
        headers = [(k, v) for k, v in handler.headers.items() if k.lower() not in _DROP_REQUEST]
        forward_path = handler.path
        if self.credential is not None:
            headers, forward_path = self.credential.headers(headers), self.credential.path(handler.path)
        headers.append(("Accept-Encoding", "identity"))  # a readable record; httpx would ask for gzip
        # A model call holds the simulated clock until it is over, whichever way it ends; only an
        # answer (2xx) is charged to the model, a provider fault never (the safety net: nothing).
        span = (
            self.generation.begin() if self.generation is not None and is_model_call(handler.path) else None
        )
        try:
            self._exchange(handler, method, forward_path, headers, body, url, span, facts)
        finally:
            self.ledger.release(facts)  # a reservation no answer replaced (provider/token_budget.py)
            if span is not None:
                span.end(charge=False)

    def _exchange(
        self,
        handler: RelayHandler,
        method: str,
        forward_path: str,
        headers: list[tuple[str, str]],
        body: bytes,
        url: str,
        span: Any,
        facts: Request,
    ) -> None:
        """Send the request upstream and pass the answer back; account, record and trace it."""
        call = self.ledger.begin(facts)
        wall_started = time.time()
        started_wait = time.monotonic()
        sent = Capture()
        sent.add(body)
        received = Capture()
        try:
            request = self.client.build_request(
                method, self.upstream + forward_path, headers=headers, content=body
            )
            response = self.client.send(request, stream=True)
            waited = time.monotonic() - started_wait
        except (
            httpx.InvalidURL,
            httpx.UnsupportedProtocol,
            httpx.LocalProtocolError,
            UnicodeError,
            ValueError,
        ) as exc:
            # The agent's request was malformed (a header httpx cannot encode, …): its fault, never
            # evidence against the provider, and no call left pending (that would read as "never answered").
            self.ledger.abandon(call)
            handler.send_error(400, f"relay: bad request: {type(exc).__name__}")
            return
        except httpx.HTTPError as exc:
            sim = span.end(charge=False) if span is not None else {}
            outcome = self.ledger.finish(call, url, None, f"{type(exc).__name__}: {exc}"[:300])
            self._remember(outcome, sim)
            self._trace(handler.path, url, wall_started, outcome, sent, received, None, sim=sim)
            send_json(handler, 502, {"error": "relay: cannot reach the provider"})
            return
        outcome, sim, broke = self._pass_back(handler, response, call, url, span, facts, received, waited)
        self._trace(
            handler.path,
            url,
            wall_started,
            outcome,
            sent,
            received,
            response.headers.get("content-encoding"),
            broke,
            sim=sim,
        )

    def _pass_back(
        self,
        handler: RelayHandler,
        response: httpx.Response,
        call: Call,
        url: str,
        span: Any,
        facts: Request,
        received: Capture,
        waited: float,
    ) -> tuple[Outcome, dict[str, Any], str | None]:
        """Stream the provider's answer to the agent as it comes; account it (and remember it)
        however the stream ends. Returns the outcome, the simulated clock's view and why the
        stream broke (None: it did not)."""
        tail = b""
        broke: str | None = None
        hung_up = agent_hung_up(handler)  # the agent stopped waiting before the provider answered
        try:
            handler.send_response(response.status_code)
            for key, value in response.headers.multi_items():
                if key.lower() not in _DROP_RESPONSE:
                    handler.send_header(key, value)
            handler.end_headers()
            for chunk in response.iter_raw():  # raw: compressed bodies stay compressed, as sent
                received.add(chunk)
                tail = (tail + chunk)[-USAGE_TAIL_BYTES:]
                handler.wfile.write(chunk)
                handler.wfile.flush()
        except (httpx.HTTPError, OSError) as exc:
            log.warning("relay stream from %s broke: %s", url, exc)
            broke = f"stream broke: {type(exc).__name__}: {exc}"[:300]
            hung_up = hung_up or isinstance(exc, OSError)  # httpx wraps its own: this is the agent's socket
        finally:
            response.close()
            # charged: an answer, even one the agent hung up on (it cannot dodge the clock so);
            # not: an error status or a stream the provider broke
            answered = 200 <= response.status_code < 300 and (broke is None or hung_up)
            sim = span.end(charge=answered) if span is not None else {}
            answer = received.data + (b"\n" + tail if received.cut else b"")
            if broke is not None:  # its usage may be partial or missing: charged at least its reservation
                self.ledger.cut_short(facts)
            outcome = self.ledger.finish(
                call, url, response.status_code, None, answer, waited_s=waited, hung_up=hung_up
            )
            self._remember(outcome, sim)
        return outcome, sim, broke

    def _trace(
        self,
        path: str,
        url: str,
        wall_started: float,
        outcome: Outcome,
        sent: Capture,
        received: Capture,
        content_encoding: str | None,
        broke: str | None = None,
        sim: dict[str, Any] | None = None,
    ) -> None:
        if self.trace is None:
            return
        try:
            self.trace.record(
                url=url,
                path=path,
                started=wall_started,
                latency_ms=outcome.duration_s * 1000,
                http_status=outcome.status,
                request=sent,
                response=received,
                content_encoding=content_encoding,
                error=outcome.error or broke,
                sim=sim,
            )
        except Exception:  # noqa: BLE001 - recording must never break the agent's call
            log.exception("recording a relay call in the trace failed")
