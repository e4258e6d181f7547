"""HTTP client for the adapter API every scenario container serves (docs/reference/container-contract.md).

The runner only ever talks to a container through this API and the engine's archive calls: no
`exec`, so images stay black boxes. Every request carries the container's adapter token
(`Authorization: Bearer`), without which the daemon answers 401.
"""

from __future__ import annotations

import functools
import ssl
import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from gaia2_contract import routes

from ..config.defaults import HEALTH_POLL_S


class AdapterError(Exception):
    """The adapter did not answer as the contract says."""


class HealthTimeout(AdapterError):
    """/health did not turn ok within the health timeout."""


class HealthFailed(AdapterError):
    """/health answered 500: the container gave up loading the scenario."""


class ContainerExited(AdapterError):
    """The container stopped while the runner was waiting for it."""


@functools.lru_cache(maxsize=1)
def shared_tls_context() -> ssl.SSLContext:
    """One TLS context for every adapter client. The adapter is plain HTTP on 127.0.0.1, so it is
    never used, but httpx otherwise builds a fresh one per client, loading the whole CA bundle:
    tens of milliseconds per scenario, and, across worker threads, the runner's memory grew with
    every scenario (OpenSSL's allocations fragment the threads' heaps; benchmarks/bench_runner.py)."""
    return ssl.create_default_context()


class AdapterClient:
    """Talks to one container's published adapter port."""

    def __init__(self, base_url: str, token: str = "", request_timeout: float = 1.0) -> None:
        self.base_url = base_url.rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        # trust_env=False: a host HTTP(S)_PROXY must never capture requests to 127.0.0.1.
        self._http = httpx.Client(
            base_url=self.base_url,
            timeout=request_timeout,
            trust_env=False,
            headers=headers,
            verify=shared_tls_context(),
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> AdapterClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_healthy(
        self,
        timeout: float,
        container_alive: Callable[[], bool] | None = None,
        poll: float = HEALTH_POLL_S,
    ) -> dict[str, Any]:
        """Poll GET /health until it says ok; return its body.

        Connection errors and 503 mean "not up yet". Raises HealthFailed on a 500, ContainerExited
        as soon as `container_alive()` turns false, HealthTimeout after `timeout` seconds.
        """
        deadline = time.monotonic() + timeout
        last = "no answer"
        alive_checked = 0.0
        while True:
            try:
                resp = self._http.get(routes.HEALTH)
                body = _json(resp)
                if resp.status_code == 200 and body.get("status") == "ok":
                    return body
                if resp.status_code >= 500 and resp.status_code != 503:
                    raise HealthFailed(str(body.get("error") or f"/health answered {resp.status_code}"))
                last = f"/health answered {resp.status_code} {body.get('status', '')}".strip()
            except httpx.HTTPError as exc:
                last = type(exc).__name__
            now = time.monotonic()
            # Asking the engine costs a round trip, so check liveness about once a second.
            if container_alive is not None and now - alive_checked >= 1.0:
                alive_checked = now
                if not container_alive():
                    raise ContainerExited("container exited before /health was ok")
            if now >= deadline:
                raise HealthTimeout(f"health timeout after {timeout:g}s ({last})")
            time.sleep(min(poll, max(0.0, deadline - now)))

    def get_status(self) -> dict[str, Any]:
        """GET /status: the daemon's current status document."""
        resp = self._http.get(routes.STATUS)
        if resp.status_code != 200:
            raise AdapterError(f"/status answered {resp.status_code}")
        return _json(resp)

    def get_messages(self, after: int = -1) -> dict[str, Any]:
        """GET /messages?after=N: what the agent wrote to the user since index N."""
        resp = self._http.get(routes.MESSAGES, params={routes.AFTER: after})
        if resp.status_code != 200:
            raise AdapterError(f"/messages answered {resp.status_code}")
        return _json(resp)

    def ping(self) -> None:
        """GET /health with the token: the daemon's watchdog counts it (sandbox/keepalive.py: runs
        and warm spares kept alive). Raises httpx.HTTPError when nothing answers."""
        self._http.get(routes.HEALTH)

    def assign(self, env: Mapping[str, str]) -> None:
        """POST /assign: a warm spare's one scenario (copied in already) and its variables."""
        resp = self._http.post(routes.ASSIGN, json={"env": dict(env)})
        if resp.status_code != 202:
            raise AdapterError(f"{routes.ASSIGN} answered {resp.status_code}: {_json(resp).get('error', '')}")

    def notify(self, message: str, sender: str = "user") -> int:
        """POST /notify: queue a message for the agent; returns its inbox index."""
        resp = self._http.post(routes.NOTIFY, json={"message": message, "sender": sender})
        if resp.status_code != 202:
            raise AdapterError(f"/notify answered {resp.status_code}: {_json(resp).get('error', '')}")
        return int(_json(resp).get("index", -1))


def _json(resp: httpx.Response) -> dict[str, Any]:
    try:
        body = resp.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
