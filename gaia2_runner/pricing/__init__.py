"""Token prices (USD per million) and the cost of one LLM call, from the table in prices.toml.

The table ships with the package and may be extended or overridden by a file named in
GAIA2_PRICES (same layout). A model without a price has no cost (None), never a guessed one.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from gaia2_runner.errors import Gaia2Error

TABLE = Path(__file__).with_name("prices.toml")
OVERRIDE_ENV = "GAIA2_PRICES"
MAX_MODEL_NAME = 200


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cached: float


def _read(path: Path) -> dict[str, Price]:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise Gaia2Error(f"{path}: cannot read the price table ({exc}); fix it or unset {OVERRIDE_ENV}") from None
    models = doc.get("models")
    if not isinstance(models, dict):
        raise Gaia2Error(f"{path}: no [models.\"NAME\"] tables (see gaia2_runner/pricing/prices.toml)")
    table = {}
    for name, entry in models.items():
        values = {k: entry.get(k) for k in ("input", "output", "cached")} if isinstance(entry, dict) else {}
        if not all(isinstance(values[k], (int, float)) and not isinstance(values[k], bool) and values[k] >= 0
                   for k in ("input", "output")) or not (values["cached"] is None or (
                       isinstance(values["cached"], (int, float)) and values["cached"] >= 0)):
            raise Gaia2Error(f"{path}: [models.\"{name}\"] needs input and output (and optionally cached) as "
                             "non-negative numbers of USD per million tokens")
        table[str(name)] = Price(float(values["input"]), float(values["output"]),
                                 float(values["cached"] if values["cached"] is not None else values["input"]))
    return table


@lru_cache(maxsize=4)
def prices(override: str | None = None) -> dict[str, Price]:
    table = _read(TABLE)
    if override:
        table.update(_read(Path(override)))
    return table


def price_of(model: str | None) -> Price | None:
    """The exact name's price, else the longest key the name starts with (a dated variant)."""
    if not model or len(model) > MAX_MODEL_NAME:
        return None
    table = prices(os.environ.get(OVERRIDE_ENV) or None)
    name = model.rsplit("/", 1)[-1]  # "anthropic/claude-…", "models/gemini-…"
    if name in table:
        return table[name]
    keys = [k for k in table if name.startswith(k)]
    return table[max(keys, key=len)] if keys else None


def call_cost(model: str | None, tokens_in: int | None, tokens_out: int | None,
              cache_read: int | None = None) -> float | None:
    """USD for one call; `tokens_in` is the whole prompt, cached tokens included (TRACE_FORMAT.md)."""
    price = price_of(model)
    if price is None or (tokens_in is None and tokens_out is None):
        return None
    cached = min(cache_read or 0, tokens_in or 0)
    fresh = (tokens_in or 0) - cached
    return (fresh * price.input + cached * price.cached + (tokens_out or 0) * price.output) / 1_000_000
