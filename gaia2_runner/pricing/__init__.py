"""Token prices (USD per million) and the cost of one LLM call, from the table in prices.toml.

The table ships with the package and may be extended or overridden by a file named in
GAIA2_PRICES (same layout). A model without a price has no cost (None), never a guessed one: a
name matches an entry exactly, as one of its `aliases`, or as a dated snapshot of an entry that
says `dated = true`. Never by a bare prefix, which billed "gpt-5-pro" as "gpt-5" and "o3-pro" as
"o3" (other models, other prices).
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from gaia2_runner.errors import Gaia2Error

TABLE = Path(__file__).with_name("prices.toml")
OVERRIDE_ENV = "GAIA2_PRICES"
MAX_MODEL_NAME = 200
# A snapshot's date after the entry's name: OpenAI "-2024-08-06", Anthropic "-20250929",
# Vertex AI's Anthropic "@20250929". Nothing else counts as the same model.
DATE_SUFFIX = re.compile(r"(?:-\d{4}-\d{2}-\d{2}|-\d{8}|@\d{8})")
ENTRY_KEYS = ("input", "output", "cached", "dated", "aliases")


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cached: float


@dataclass(frozen=True)
class PriceTable:
    """Entries by name, the names their `aliases` stand for, and the entries that price their
    dated snapshots."""

    rates: dict[str, Price] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    dated: frozenset[str] = frozenset()

    def merged(self, other: PriceTable) -> PriceTable:
        """`other` on top: an entry of the same name replaces this one whole (its aliases and
        `dated` too), and its aliases win over this table's."""
        kept = {alias: name for alias, name in self.aliases.items() if name not in other.rates}
        return PriceTable(
            {**self.rates, **other.rates},
            {**kept, **other.aliases},
            (self.dated - set(other.rates)) | other.dated,
        )

    def entry_of(self, name: str) -> str | None:
        """The entry `name` (provider qualifier already removed) is priced by, else None."""
        if name in self.rates:
            return name
        if name in self.aliases:
            return self.aliases[name]
        for entry in self.dated:
            if name.startswith(entry) and DATE_SUFFIX.fullmatch(name, len(entry)):
                return entry
        return None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _entry(path: Path, name: str, entry: Any) -> tuple[Price, bool, tuple[str, ...]]:
    where = f'{path}: [models."{name}"]'
    if not isinstance(entry, dict):
        raise Gaia2Error(f"{where} must be a table of input, output (and optionally cached, dated, aliases)")
    unknown = sorted(set(entry) - set(ENTRY_KEYS))
    if unknown:
        raise Gaia2Error(
            f"{where}: unknown key {unknown[0]!r}; an entry has {', '.join(ENTRY_KEYS)} "
            "(see the header of gaia2_runner/pricing/prices.toml)"
        )
    cached = entry.get("cached")
    if not (
        _number(entry.get("input")) and _number(entry.get("output")) and (cached is None or _number(cached))
    ):
        raise Gaia2Error(
            f"{where} needs input and output (and optionally cached) as "
            "non-negative numbers of USD per million tokens"
        )
    dated = entry.get("dated", False)
    if not isinstance(dated, bool):
        raise Gaia2Error(f"{where}: dated must be true or false")
    aliases = entry.get("aliases", [])
    if not (
        isinstance(aliases, list)
        and all(isinstance(a, str) and 0 < len(a) <= MAX_MODEL_NAME and "/" not in a for a in aliases)
    ):
        raise Gaia2Error(f"{where}: aliases must be a list of model names (without a provider/ qualifier)")
    rate_in = float(entry["input"])
    price = Price(rate_in, float(entry["output"]), rate_in if cached is None else float(cached))
    return price, dated, tuple(aliases)


def _read(path: Path) -> PriceTable:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise Gaia2Error(
            f"{path}: cannot read the price table ({exc}); fix it or unset {OVERRIDE_ENV}"
        ) from None
    models = doc.get("models")
    if not isinstance(models, dict):
        raise Gaia2Error(f'{path}: no [models."NAME"] tables (see gaia2_runner/pricing/prices.toml)')
    rates: dict[str, Price] = {}
    aliases: dict[str, str] = {}
    dated: set[str] = set()
    for name, entry in models.items():
        rates[name], is_dated, names = _entry(path, name, entry)
        if is_dated:
            dated.add(name)
        for alias in names:
            if alias in aliases or alias in models:
                other = aliases.get(alias, alias)
                raise Gaia2Error(
                    f'{path}: [models."{name}"] alias {alias!r} also names [models."{other}"]; keep one'
                )
            aliases[alias] = name
    return PriceTable(rates, aliases, frozenset(dated))


@lru_cache(maxsize=4)
def prices(override: str | None = None) -> PriceTable:
    table = _read(TABLE)
    if not override:
        return table
    extra = _read(Path(override))
    clash = sorted(set(extra.aliases) & (set(table.rates) - set(extra.rates)))
    if clash:
        raise Gaia2Error(
            f"{override}: alias {clash[0]!r} is an entry of gaia2_runner/pricing/prices.toml; "
            f'give it a [models."{clash[0]}"] entry of its own to re-price it'
        )
    return table.merged(extra)


def price_of(model: str | None) -> Price | None:
    """The price of the entry the name matches (see PriceTable.entry_of), else None. A provider
    qualifier ("anthropic/claude-…", "models/gemini-…") is left out first."""
    if not model or len(model) > MAX_MODEL_NAME:
        return None
    table = prices(os.environ.get(OVERRIDE_ENV) or None)
    entry = table.entry_of(model.rsplit("/", 1)[-1])
    return None if entry is None else table.rates[entry]


def call_cost(
    model: str | None, tokens_in: int | None, tokens_out: int | None, cache_read: int | None = None
) -> float | None:
    """USD for one call; `tokens_in` is the whole prompt, cached tokens included (TRACE_FORMAT.md)."""
    price = price_of(model)
    if price is None or (tokens_in is None and tokens_out is None):
        return None
    cached = min(cache_read or 0, tokens_in or 0)
    fresh = (tokens_in or 0) - cached
    return (fresh * price.input + cached * price.cached + (tokens_out or 0) * price.output) / 1_000_000
