import json

import pytest
from conftest import scenario_doc

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.targets.scenario_file import load_scenario
from gaia2_runner.text import safe_name


def test_valid_file(write_scenario):
    path = write_scenario(doc=scenario_doc("calendar_1", 45))
    s = load_scenario(path)
    assert (s.scenario_id, s.duration, s.warnings) == ("calendar_1", 45.0, [])
    assert s.raw == path.read_bytes()


def test_null_duration(write_scenario):
    assert load_scenario(write_scenario(doc=scenario_doc(duration=None))).duration is None


def test_missing_file(tmp_path):
    with pytest.raises(Gaia2Error, match="not found"):
        load_scenario(tmp_path / "nope.json")


def test_directory(tmp_path):
    with pytest.raises(Gaia2Error, match="not a regular file"):
        load_scenario(tmp_path)


def test_bad_json_reports_line_and_column(write_scenario):
    with pytest.raises(Gaia2Error, match=r"not valid JSON.*line 2, column 5"):
        load_scenario(write_scenario(text="{\n    oops}"))


def test_not_an_object(write_scenario):
    with pytest.raises(Gaia2Error, match="JSON list, not an object"):
        load_scenario(write_scenario(text="[1, 2]"))


@pytest.mark.parametrize("key", ["events", "apps"])
def test_missing_events_or_apps(write_scenario, key):
    doc = scenario_doc()
    del doc[key]
    with pytest.raises(Gaia2Error, match=f"no `{key}` field"):
        load_scenario(write_scenario(doc=doc))


def test_events_not_a_list(write_scenario):
    doc = scenario_doc()
    doc["events"] = {}
    with pytest.raises(Gaia2Error, match="must be a list"):
        load_scenario(write_scenario(doc=doc))


def test_missing_id_falls_back_to_stem_with_warning(write_scenario):
    s = load_scenario(write_scenario("my_scn.json", doc=scenario_doc(scenario_id=None)))
    assert s.scenario_id == "my_scn"
    assert s.warnings and "metadata.definition.scenario_id" in s.warnings[0]


def test_bad_duration(write_scenario):
    with pytest.raises(Gaia2Error, match="duration"):
        load_scenario(write_scenario(doc=scenario_doc(duration="soon")))


def test_error_message_is_one_line(write_scenario):
    with pytest.raises(Gaia2Error) as info:
        load_scenario(write_scenario(text="{\n\n"))
    assert "\n" not in str(info.value)


def test_safe_name():
    assert safe_name("a/b c:..") == "a_b_c"
    assert safe_name("../..") == "scenario"
    assert safe_name(json.dumps("ok-1.2")) == "ok-1.2"
