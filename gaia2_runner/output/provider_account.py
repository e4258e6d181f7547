"""The model relay's account of one run (daemon status `provider`, result.json `provider`) and what
the job reads from it: a configuration fault, pressure on the provider, tokens and cost.

The daemon (root) writes the account; it is still input from a container, so only known keys with
sane values are kept (`sanitize`). Which provider outcome is which kind is decided in the container
(containers/gaia2_container/daemon/provider_faults.py); the host only reads the kinds' names here.
"""

from __future__ import annotations

import math
from typing import Any

from gaia2_runner.pricing import call_cost
from gaia2_runner.text import one_line

# Counters of the relay's ledger (provider_ledger.py). `configuration` counts suspicions (refusals
# of the runner's key, model or endpoint on the agent's traffic); `probes` the runner's own requests
# sent to check them; `confirmed_unavailable` the rate limits, server errors and silences that the
# runner's own request met too: the only load on the provider the job slows down for (an agent's
# own oversized or endless requests, or its flood, never lower the job's concurrency).
COUNTS = (
    "calls",
    "ok",
    "rate_limit",
    "server_error",
    "unanswered",
    "rate_limit_burst",
    "context_overflow",
    "agent",
    "configuration",
    "refused_budget",
    "refused_model",
    "probes",
    "confirmed_unavailable",
)
PRESSURE = ("confirmed_unavailable",)
CONFIGURATION = "configuration"
MAX_MODELS = 16
MAX_COUNT = 10**12


def _count(value: Any) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT
    return value if ok else 0


def _tokens(doc: Any) -> dict[str, int]:
    doc = doc if isinstance(doc, dict) else {}
    return {key: _count(doc.get(key)) for key in ("input", "output", "cached")}


def sanitize(doc: Any) -> dict[str, Any] | None:
    """The known part of a daemon's `provider` document, else None."""
    if not isinstance(doc, dict):
        return None
    account: dict[str, Any] = {key: _count(doc.get(key)) for key in COUNTS}
    account["tokens"] = _tokens(doc.get("tokens"))
    models = doc.get("by_model")
    if not isinstance(models, dict):
        models = {}
    account["by_model"] = {
        one_line(str(name), limit=200): {**_tokens(entry), "calls": _count((entry or {}).get("calls"))}
        for name, entry in list(models.items())[:MAX_MODELS]
        if isinstance(entry, dict)
    }
    account["fault"] = sanitize_fault(doc.get("fault"))
    budget = doc.get("token_budget")
    account["token_budget"] = budget if _count(budget) else None
    account["budget_exhausted"] = doc.get("budget_exhausted") is True
    return account


def sanitize_fault(fault: Any) -> dict[str, str] | None:
    """A daemon's configuration fault document ({"kind": "configuration", "reason"}), else None."""
    if (
        isinstance(fault, dict)
        and fault.get("kind") == CONFIGURATION
        and isinstance(fault.get("reason"), str)
    ):
        return {"kind": CONFIGURATION, "reason": one_line(fault["reason"], limit=1000)}
    return None


def configuration_fault(record: dict[str, Any]) -> str | None:
    """Why a run (result.json content) ended on a configuration fault of the agent's provider or of
    the expert agents' (Agent2Agent), else None. The daemon sets a fault only when the runner's own
    probe was refused too (containers/gaia2_container/daemon/provider_probe.py)."""
    if record.get("success") is not None:
        return None
    judge = record.get("judge_fault")
    if isinstance(judge, dict) and judge.get("kind") == CONFIGURATION:
        return "the judge's provider: " + str(judge.get("reason") or "configuration fault")
    for name, whose in (("provider", ""), ("a2a_provider", "the expert agents' provider: ")):
        account = record.get(name)
        fault = account.get("fault") if isinstance(account, dict) else None
        if isinstance(fault, dict) and fault.get("kind") == CONFIGURATION:
            return whose + str(fault.get("reason") or "configuration fault")
    return None


def pressure(account: Any) -> int:
    """Rate limits (not after the agent's own flood), server errors and unanswered calls so far
    that the runner's own probe met too."""
    if not isinstance(account, dict):
        return 0
    return sum(_count(account.get(key)) for key in PRESSURE)


ACCOUNTS = ("provider", "a2a_provider")  # result.json: the agent's relay, the expert agents' (Agent2Agent)
UNLISTED = "models beyond the account's list"


def _models(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The `by_model` table of each account the run has."""
    accounts = [record.get(key) for key in ACCOUNTS]
    return [a["by_model"] for a in accounts if isinstance(a, dict) and isinstance(a.get("by_model"), dict)]


def run_cost(record: dict[str, Any]) -> float | None:
    """USD the run's model calls (the agent's and its expert agents') cost at the price table's
    rates; None when nothing is priced. Calls to a model the table cannot price are not in the sum:
    `unpriced_models` names them, and the run's cost is then unknown, not this much."""
    costs = [
        call_cost(name, _count(entry.get("input")), _count(entry.get("output")), _count(entry.get("cached")))
        for models in _models(record)
        for name, entry in models.items()
        if isinstance(entry, dict)
    ]
    priced = [cost for cost in costs if cost is not None and math.isfinite(cost)]
    return sum(priced) if priced else None


def unpriced_models(record: dict[str, Any]) -> list[str]:
    """The models the run called (calls or tokens) that the price table cannot price, and
    UNLISTED when an account's tokens exceed its models' (`sanitize` keeps MAX_MODELS of them)."""
    names = {
        str(name)
        for models in _models(record)
        for name, entry in models.items()
        if isinstance(entry, dict)
        and any(_count(entry.get(k)) for k in ("calls", "input", "output"))
        and call_cost(str(name), 0, 0) is None
    }
    for key in ACCOUNTS:
        account = record.get(key)
        if isinstance(account, dict) and isinstance(account.get("by_model"), dict):
            listed = [entry for entry in account["by_model"].values() if isinstance(entry, dict)]
            total = _tokens(account.get("tokens"))
            if any(total[k] > sum(_count(entry.get(k)) for entry in listed) for k in ("input", "output")):
                names.add(UNLISTED)
    return sorted(names)
