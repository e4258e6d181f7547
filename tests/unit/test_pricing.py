"""The price table (gaia2_runner/pricing): a model name is priced by its exact entry, an entry's
alias, or an entry that declares its dated snapshots; never by a bare prefix. The shipped table and
real override files named in GAIA2_PRICES."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.pricing import OVERRIDE_ENV, TABLE, Price, call_cost, price_of, prices


@pytest.fixture(autouse=True)
def fresh_table(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(OVERRIDE_ENV, raising=False)
    prices.cache_clear()
    yield
    prices.cache_clear()


def override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    path = tmp_path / "prices.toml"
    path.write_text(text)
    monkeypatch.setenv(OVERRIDE_ENV, str(path))
    prices.cache_clear()
    return path


def test_exact_names_and_declared_snapshots_are_priced() -> None:
    sonnet = price_of("claude-sonnet-4-5")
    assert sonnet == Price(3.0, 15.0, 0.3)
    assert price_of("claude-sonnet-4-5-20250929") == sonnet  # Anthropic's dated name
    assert price_of("claude-sonnet-4-5@20250929") == sonnet  # Vertex AI's
    assert price_of("claude-sonnet-4-20250514") == price_of("claude-sonnet-4")  # not 4-5's entry
    assert price_of("gpt-4o-2024-08-06") == price_of("gpt-4o") == Price(2.5, 10.0, 1.25)  # OpenAI's
    assert price_of("gpt-4o-mini-2024-07-18") == price_of("gpt-4o-mini") != price_of("gpt-4o")
    assert price_of("claude-3-5-haiku-latest") == price_of("claude-3-5-haiku")  # an alias
    assert price_of("gpt-4o-2024-05-13") == Price(5.0, 15.0, 5.0)  # a snapshot's own entry wins


def test_a_bare_prefix_prices_nothing() -> None:
    assert price_of("gpt-5") is not None
    for name in (
        "gpt-5-pro",
        "gpt-5-pro-2025-10-06",
        "o3-pro",
        "o1-pro",
        "gpt-4o-audio-preview",
        "claude-sonnet-4-5-thinking",
        "gpt-5-2025-08",
        "gpt-5-20250807x",
        "gemini-2.5-flash-preview-09-2025",
        "gpt-4o-2024-05-13-2024-08-06",
        "claude-opus-4-1-latest",
    ):
        assert price_of(name) is None, name
    assert call_cost("gpt-5-pro", 1_000_000, 1_000_000) is None


def test_provider_qualified_names_keep_their_price() -> None:
    assert price_of("anthropic/claude-sonnet-4-5-20250929") == price_of("claude-sonnet-4-5")
    assert price_of("models/gemini-2.5-flash") == price_of("gemini-2.5-flash") is not None
    assert price_of("openai/gpt-5-pro") is None
    assert price_of(None) is None and price_of("") is None and price_of("g" * 300) is None


def test_every_shipped_snapshot_rule_is_sound() -> None:
    table = prices()
    assert table.dated and table.aliases  # the shipped table declares both
    for alias, entry in table.aliases.items():
        assert entry in table.rates and alias not in table.rates
    for entry in table.dated:  # each dated entry prices its snapshot and nothing longer
        assert table.entry_of(f"{entry}-2025-01-31") == entry
        assert table.entry_of(f"{entry}-pro") is None
    assert TABLE.read_text().startswith("# USD per million tokens")


def test_an_override_file_adds_and_replaces_entries_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    override(
        tmp_path,
        monkeypatch,
        '[models."gpt-5"]\ninput = 2.0\noutput = 20.0\n\n'
        '[models."o1-pro"]\ninput = 150.0\noutput = 600.0\naliases = ["o1-pro-latest"]\ndated = true\n',
    )
    assert price_of("gpt-5") == Price(2.0, 20.0, 2.0)
    assert price_of("gpt-5-2025-08-07") is None  # the shipped entry's `dated` went with it
    assert price_of("o1-pro-2025-03-19") == price_of("o1-pro-latest") == Price(150.0, 600.0, 150.0)
    assert call_cost("o1-pro", 1000, 1000) == pytest.approx((1000 * 150 + 1000 * 600) / 1e6)
    assert price_of("claude-sonnet-4-5-20250929") == Price(3.0, 15.0, 0.3)  # the rest stays


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[models."m"]\ninput = -1\noutput = 1\n', "non-negative"),
        ('[models."m"]\ninput = 1\noutput = 1\nprefix = true\n', "unknown key 'prefix'"),
        ('[models."m"]\ninput = 1\noutput = 1\ndated = "yes"\n', "dated must be true or false"),
        ('[models."m"]\ninput = 1\noutput = 1\naliases = "m-2"\n', "aliases must be a list"),
        ('[models."m"]\ninput = 1\noutput = 1\naliases = ["x/m-2"]\n', "aliases must be a list"),
        (
            '[models."m"]\ninput = 1\noutput = 1\naliases = ["n"]\n[models."n"]\ninput = 1\noutput = 1\n',
            "alias 'n' also names",
        ),
        ('[models."m"]\ninput = 1\noutput = 1\naliases = ["gpt-5"]\n', "alias 'gpt-5' is an entry of"),
        ('[models."m"\n', "cannot read the price table"),
        ("x = 1\n", "no \\[models"),
    ],
)
def test_a_bad_override_file_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, words: str
) -> None:
    path = override(tmp_path, monkeypatch, text)
    with pytest.raises(Gaia2Error, match=words) as caught:
        price_of("gpt-5")
    assert "\n" not in caught.value.message and str(path) in caught.value.message
