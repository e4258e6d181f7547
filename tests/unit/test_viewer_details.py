"""Trace pages: prev/next between scenarios, each rationale once, ENV payloads in sight, failed
tool calls counted, turns numbered from 1, tokens priced from the table in the repo."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.pricing import call_cost, price_of, prices
from gaia2_runner.viewer import Site
from viewer_synth import dataset_tree, write_scenario


def _page(root: Path, rel: str) -> str:
    return (root / rel / "trace.html").read_text()


def test_prev_and_next_follow_the_index_order_within_a_run(tmp_path: Path) -> None:
    dataset_tree(tmp_path, 4, splits=("search",), pass_at=2)
    Site(tmp_path).refresh()
    middle = _page(tmp_path, "run_2/search/scenario_00001")
    assert 'href="../../../run_2/search/scenario_00000/trace.html" rel="prev"' in middle
    assert re.search(r'href="../../../run_2/search/scenario_00002/trace.html" rel="next"', middle)
    first, last = (
        _page(tmp_path, "run_1/search/scenario_00000"),
        _page(tmp_path, "run_1/search/scenario_00003"),
    )
    assert 'rel="prev"' not in first and 'rel="next"' in first
    assert 'rel="next"' not in last and 'rel="prev"' in last


def test_a_failure_shows_its_rationale_once_with_turns_from_one(tmp_path: Path) -> None:
    directory = write_scenario(tmp_path / "s", "s", random.Random(3), state="fail")
    rationale = "Agent did not perform the oracle call EmailClientV2__send_email"
    result = json.loads((directory / "result.json").read_text())
    result.update(
        failure_reasons=[f"turn 1: {rationale}"],
        judgment={"success": False, "rationale": rationale, "failed_turn_number": 1},
        turns=[{"turn_number": 1, "success": False, "rationale": rationale, "error": None}],
    )
    (directory / "result.json").write_text(json.dumps(result))
    events = [json.loads(line) for line in (directory / "events.jsonl").read_text().splitlines()]
    for event in events:
        if event["kind"] == "judgment":
            event.update(success=False, rationale=rationale)
    events.insert(
        2,
        {
            "kind": "tool_call",
            "app": "Emails",
            "function": "send_email",
            "args": {"recipients": ["x"]},
            "write": True,
            "ok": False,
            "error": "ValueError: unknown recipient",
            "seq": 99,
        },
    )
    events.insert(
        3,
        {
            "kind": "env_event",
            "event_type": "ENV",
            "app": "Chats",
            "function": "create_and_add_message",
            "event_id": "e1",
            "args": {"content": "ENV-PAYLOAD-VISIBLE"},
            "ok": True,
            "seq": 98,
        },
    )
    (directory / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    Site(tmp_path).refresh()
    page = _page(tmp_path, "s")
    assert page.count(rationale) == 1
    assert "failed at turn 1" in page and "<td>1</td>" in page
    assert "Emails__send_email" in page and "Chats__create_and_add_message" in page
    payload = page.index("ENV-PAYLOAD-VISIBLE")
    assert "<details" not in page[page.rfind("<li", 0, payload) : payload]  # not folded away
    assert re.search(r"<dt>tool errors</dt><dd><span class=\"badge s-fail\">1</span>", page)
    index = (tmp_path / "index.html").read_text()
    assert '<td data-v="1"><span class="badge s-fail">1</span></td>' in index


def test_costs_come_from_the_price_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert price_of("claude-sonnet-4-5-20250929") == price_of("claude-sonnet-4-5")
    assert price_of("anthropic/gpt-4o") == price_of("gpt-4o") and price_of("m-1") is None
    assert call_cost("gpt-4o", 1_000_000, 100_000, 500_000) == pytest.approx(
        0.5 * 2.5 + 0.5 * 1.25 + 0.1 * 10
    )
    override = tmp_path / "prices.toml"
    override.write_text('[models."m-1"]\ninput = 1.0\noutput = 2.0\n')
    monkeypatch.setenv("GAIA2_PRICES", str(override))
    assert call_cost("m-1", 1000, 500, 200) == pytest.approx((800 * 1.0 + 200 * 1.0 + 500 * 2.0) / 1e6)
    write_scenario(tmp_path / "out" / "s", "s", random.Random(4), n_calls=3)
    Site(tmp_path / "out").refresh()
    page = _page(tmp_path / "out", "s")
    assert re.search(r"<dt>cost</dt><dd>\$0\.\d{4}</dd>", page) and page.count("· $0.") == 3
    override.write_text('[models."m-1"]\ninput = -1\n')
    prices.cache_clear()
    with pytest.raises(Gaia2Error, match="non-negative"):
        price_of("m-1")
    prices.cache_clear()


def test_the_index_groups_failures_by_reason(tmp_path: Path) -> None:
    rng = random.Random(5)
    for i, reason in enumerate(["send_email.recipients: expected a@x, got b@x"] * 3 + ["cab: never called"]):
        directory = write_scenario(tmp_path / f"s{i}", f"s{i}", rng, state="fail")
        result = json.loads((directory / "result.json").read_text())
        result["failure_reasons"] = [f"turn {1 + i % 2}: {reason}"]
        (directory / "result.json").write_text(json.dumps(result))
    write_scenario(tmp_path / "ok", "ok", rng, state="pass")
    Site(tmp_path).refresh()
    index = (tmp_path / "index.html").read_text()
    section = index[index.index('id="reasons"') : index.index("</section>", index.index('id="reasons"'))]
    rows = re.findall(r"<tr><td>(\d+)</td><td class=\"reason\">([^<]*)</td>", section)
    assert rows == [("3", "send_email.recipients: expected a@x, got b@x"), ("1", "cab: never called")]
    assert section.count('href="./s') == 4
