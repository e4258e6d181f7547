"""Turn numbers count from 1 in everything the runner writes and reads."""

from __future__ import annotations

import pytest

from gaia2_runner.output.result import ScenarioResult, failure_reasons
from gaia2_runner.output.turns import current_turn_number, failed_turn_number, turn_number

NEW = {
    "status": "failed",
    "judgment": {"success": False, "rationale": "r", "failed_turn_number": 2},
    "turns": [
        {"turn_number": 1, "success": True, "rationale": ""},
        {"turn_number": 2, "success": False, "rationale": "r", "reason": "send_email: never called"},
    ],
}


def test_turns_read_as_numbers_from_1():
    doc = NEW
    assert [turn_number(t) for t in doc["turns"]] == [1, 2]
    assert failed_turn_number(doc["judgment"]) == 2
    assert failure_reasons(doc)[0] == "turn 2: send_email: never called"
    result = ScenarioResult(scenario_id="s")
    result.apply_status(doc)
    assert result.failure_reasons[0] == "turn 2: send_email: never called"


@pytest.mark.parametrize("value", [None, "1", True, -1, 1.0, [1], {"n": 1}])
def test_anything_but_a_count_is_no_turn(value):
    assert turn_number({"turn_number": value}) is None
    assert failed_turn_number({"failed_turn_number": value}) is None
    assert turn_number(value) is None and current_turn_number(value) is None


def test_zero_is_no_turn_number():
    assert turn_number({"turn_number": 0}) is None and current_turn_number({"turn_number": 0}) is None
    assert current_turn_number({"turn_number": 2}) == 2
