import json
import os

from gaia2_runner.output.result import ScenarioResult, failure_reasons, write_result


def status_doc(**kw):
    doc = {
        "scenario_id": "s",
        "status": "running",
        "agent_actions": 3,
        "turns": [],
        "judgment": None,
        "error": None,
    }
    doc.update(kw)
    return doc


def test_completed_success():
    r = ScenarioResult("s")
    r.apply_status(
        status_doc(
            status="completed",
            judgment={"success": True, "rationale": ""},
            turns=[{"turn_number": 1, "success": True, "rationale": ""}],
        )
    )
    assert (r.status, r.success, r.agent_actions, r.failure_reasons) == ("completed", True, 3, [])


def test_completed_failure_collects_rationales():
    r = ScenarioResult("s")
    r.apply_status(
        status_doc(
            status="completed",
            judgment={"success": False, "rationale": "wrong date", "failed_turn_number": 1},
            turns=[{"turn_number": 1, "success": False, "rationale": "wrong date"}],
        )
    )
    assert r.success is False
    assert r.failure_reasons == ["turn 1: wrong date"]  # turns count from 1, as scenario ids do


def test_failed_error_timeout_mapping():
    r = ScenarioResult("s")
    r.apply_status(status_doc(status="failed"))
    assert (r.status, r.success) == ("failed", False)
    r = ScenarioResult("s")
    r.apply_status(status_doc(status="error", error="agent crashed\nwith trace"))
    assert (r.status, r.success, r.error) == ("error", None, "agent crashed with trace")
    r = ScenarioResult("s")
    r.apply_status(status_doc(status="timeout"))
    assert (r.status, r.success) == ("timeout", None) and r.error


def test_completed_without_judgment_has_no_verdict():
    r = ScenarioResult("s")
    r.apply_status(status_doc(status="completed"))
    assert r.success is None and r.error


def test_failure_reasons_include_daemon_error():
    assert failure_reasons(status_doc(error="boom")) == ["boom"]


def test_simulated_times_come_from_the_status_document():
    r = ScenarioResult("s")
    r.apply_status(
        status_doc(
            status="completed", judgment={"success": True}, sim_start=1728975600.0, sim_time=1728975721.5
        )
    )
    assert (r.sim_start, r.sim_end, r.sim_elapsed) == (1728975600.0, 1728975721.5, 121.5)
    # The document is untrusted: anything but a finite number is no time at all.
    r.apply_status(status_doc(status="completed", sim_start="soon", sim_time=float("nan")))
    assert (r.sim_start, r.sim_end, r.sim_elapsed) == (None, None, None)


def test_result_json_keys_and_atomic_write(tmp_path):
    r = ScenarioResult(
        "s",
        success=True,
        status="completed",
        image="img",
        runtime="oracle",
        container_id="abc",
        output_dir=tmp_path,
    )
    r.timings.ready_s = 1.5
    r.finish()
    path = write_result(r, tmp_path / "s")
    data = json.loads(path.read_text())
    assert set(data) == {
        "scenario_id",
        "success",
        "status",
        "error",
        "note",
        "artifacts_lost",
        "failure_reasons",
        "judgment",
        "agent_actions",
        "sim_start",
        "sim_end",
        "sim_elapsed",
        "sim_generation_time",
        "turns",
        "provider",
        "a2a",
        "a2a_provider",
        "judge_fault",
        "timings",
        "image",
        "runtime",
        "container_id",
        "warm_start",
        "started_at",
        "finished_at",
    }
    assert set(data["timings"]) == {"start_s", "ready_s", "run_s", "collect_s", "total_s"}
    assert data["timings"]["ready_s"] == 1.5 and data["success"] is True
    # No temp file left behind; overwriting replaces the file in one step.
    write_result(r, tmp_path / "s")
    assert os.listdir(tmp_path / "s") == ["result.json"]


def test_failed_write_leaves_old_file(tmp_path, monkeypatch):
    r = ScenarioResult("s", status="completed", success=True)
    write_result(r, tmp_path)
    before = (tmp_path / "result.json").read_text()

    def boom(*_a, **_k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    r.success = False
    try:
        write_result(r, tmp_path)
    except OSError:
        pass
    assert (tmp_path / "result.json").read_text() == before
    assert os.listdir(tmp_path) == ["result.json"]


def test_the_judge_diff_leads_the_reasons():
    r = ScenarioResult("s")
    long = "Failure: Agent did not perform the following oracle tool call: tool name: Emails__send_email ..."
    r.apply_status(
        status_doc(
            status="completed",
            judgment={
                "success": False,
                "rationale": long,
                "failed_turn_number": 2,
                "reason": "send_email.recipients: expected ['a@x'], got ['b@x']",
            },
            turns=[
                {"turn_number": 1, "success": True, "rationale": ""},
                {
                    "turn_number": 2,
                    "success": False,
                    "rationale": long,
                    "reason": "send_email.recipients: expected ['a@x'], got ['b@x']",
                },
            ],
        )
    )
    assert r.failure_reasons[0] == "turn 2: send_email.recipients: expected ['a@x'], got ['b@x']"
    assert r.failure_reasons[1] == long  # ARE's own rationale stays, after the diff
