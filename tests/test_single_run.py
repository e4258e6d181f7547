import json
import time

import pytest

from gaia2_runner import single_run
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.single_run import default_timeout, run_scenario

from fakes import FakeBackend

OK = lambda: (200, {"status": "ok", "runtime": "oracle"})  # noqa: E731


def final(status="completed", success=True):
    judgment = {"success": success, "rationale": "" if success else "wrong event", "failed_turn": None}
    return {"scenario_id": "demo_ok", "status": status, "agent_actions": 2,
            "turns": [{"turn": 0, "success": success, "rationale": judgment["rationale"]}],
            "judgment": judgment if status == "completed" else None, "error": None}


@pytest.fixture(autouse=True)
def fast_polls(monkeypatch):
    monkeypatch.setattr(single_run, "STATUS_POLL_S", 0.05)
    monkeypatch.setattr(single_run, "RUNNER_GRACE_S", 0.0)


def run_with(backend, scenario, tmp_path, **kw):
    try:
        return run_scenario(scenario, "img", tmp_path / "out", backend=backend, **kw)
    finally:
        backend.close()


def test_completed_pass_writes_artifacts(write_scenario, tmp_path):
    backend = FakeBackend(OK, lambda: final())
    r = run_with(backend, write_scenario(), tmp_path, runtime="oracle", extra_env={"X": "1"})
    assert (r.status, r.success, r.agent_actions, r.runtime) == ("completed", True, 2, "oracle")
    out = tmp_path / "out" / "demo_ok"
    data = json.loads((out / "result.json").read_text())
    assert data["success"] is True and data["container_id"] == "fake-container-id"
    assert (out / "daemon_status.json").exists() and (out / "container.log").exists()
    env = backend.started[0]["env"]
    assert env["GAIA2_RUNTIME"] == "oracle" and env["X"] == "1" and env["GAIA2_SCENARIO_TIMEOUT"] == "150"
    assert all(h.cleaned for h in backend.handles)
    assert all(v is not None for v in data["timings"].values())


def test_completed_fail(write_scenario, tmp_path):
    r = run_with(FakeBackend(OK, lambda: final(success=False)), write_scenario(), tmp_path)
    assert (r.status, r.success) == ("completed", False)
    assert r.failure_reasons == ["turn 0: wrong event"]


def test_health_timeout(write_scenario, tmp_path):
    backend = FakeBackend(lambda: (503, {"status": "starting"}), lambda: final())
    r = run_with(backend, write_scenario(), tmp_path, health_timeout=0.5)
    assert (r.status, r.success) == ("error", None)
    assert r.error.startswith("health timeout after 0.5s")
    assert json.loads((tmp_path / "out" / "demo_ok" / "result.json").read_text())["status"] == "error"


def test_crash_while_running(write_scenario, tmp_path):
    t0 = time.monotonic()
    backend = FakeBackend(OK, lambda: {"status": "running"}, running=lambda: time.monotonic() - t0 < 0.5)
    r = run_with(backend, write_scenario(), tmp_path)
    assert (r.status, r.success) == ("crashed", None)
    assert "code 3" in r.error and "Traceback: it broke" in r.error


def test_runner_timeout(write_scenario, tmp_path):
    r = run_with(FakeBackend(OK, lambda: {"status": "running"}), write_scenario(), tmp_path, timeout=0.5)
    assert (r.status, r.success) == ("timeout", None)


def test_interrupt_cleans_up_and_reraises(write_scenario, tmp_path, monkeypatch):
    def interrupted(self, client, timeout):
        raise KeyboardInterrupt

    monkeypatch.setattr(single_run._Run, "_poll_until_final", interrupted)
    backend = FakeBackend(OK, lambda: {"status": "running"})
    with pytest.raises(KeyboardInterrupt):
        run_with(backend, write_scenario(), tmp_path)
    data = json.loads((tmp_path / "out" / "demo_ok" / "result.json").read_text())
    assert (data["status"], data["success"]) == ("interrupted", None)
    assert backend.handles[0].cleaned


def test_missing_image_is_user_error(write_scenario, tmp_path):
    backend = FakeBackend(OK, lambda: final(), images=())
    with pytest.raises(Gaia2Error, match="image img not found: build it with `gaia2-runner images build`"):
        run_with(backend, write_scenario(), tmp_path)
    assert backend.started == []


def test_bad_scenario_starts_nothing(write_scenario, tmp_path):
    backend = FakeBackend(OK, lambda: final())
    with pytest.raises(Gaia2Error):
        run_with(backend, write_scenario(text="{"), tmp_path)
    assert backend.started == []


def test_default_timeout():
    assert default_timeout(None) == 600 and default_timeout(30) == 150
