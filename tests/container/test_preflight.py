"""Preflight without containers: loopback URLs refused at config time, the container-side checks
run in-process against the scripted provider for every wire, and the runner's wording of what
they found (one error line naming the setting, or warnings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import assert_one_error_line, invoke
from fake_llm.server import PREFLIGHT_MARKER, FakeLLM
from gaia2_runner.config import apply_overrides, load_config
from gaia2_runner.config.endpoints import HOST_GATEWAY, loopback_host, via_host_gateway
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.plan import plan_run
from gaia2_runner.execution.preflight import PreflightReport, assess

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "examples" / "scenarios" / "demo_calendar_add_event.json"
HARNESSES = ROOT / "containers" / "harnesses"
from gaia2_container import preflight as inside  # noqa: E402 - the container's package, by path
from gaia2_container import probes  # noqa: E402

# ---- loopback URLs: refused when the config is checked, before any container -----------------


@pytest.mark.parametrize(
    "url, host",
    [
        ("http://127.0.0.1:8000/v1", "127.0.0.1"),
        ("http://127.0.0.2/v1", "127.0.0.2"),
        ("http://LOCALHOST:8000/v1", "localhost"),
        ("http://[::1]:8000/v1", "::1"),
        ("http://0.0.0.0:8000", "0.0.0.0"),
        ("http://api.localhost/v1", "api.localhost"),
    ],
)
def test_loopback_hosts_are_recognised(url, host):
    assert loopback_host(url) == host


@pytest.mark.parametrize(
    "url",
    [
        "http://host.containers.internal:8000/v1",
        "http://10.0.2.2:8000/v1",
        "https://api.openai.com/v1",
        "not a url",
        "",
    ],
)
def test_other_hosts_are_not(url):
    assert loopback_host(url) is None


def test_the_hint_keeps_port_and_path():
    assert via_host_gateway("http://localhost:8000/v1?x=1") == f"http://{HOST_GATEWAY}:8000/v1?x=1"


def _agent_run(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--scenario",
        str(SCENARIO),
        "--output-dir",
        str(tmp_path / "out"),
        "--agent",
        "llm",
        "--provider",
        "openai-compat",
        "--model",
        "m",
        "--judge-provider",
        "openai-compat",
        "--judge-model",
        "j",
        *extra,
    ]


@pytest.mark.parametrize(
    "flag, url",
    [
        ("--base-url", "http://127.0.0.1:8000/v1"),
        ("--judge-base-url", "http://localhost:8001/v1"),
        ("--base-url", "http://[::1]:8000/v1"),
    ],
)
def test_a_loopback_url_is_one_error_line_with_the_hint(tmp_path, flag, url):
    other = "--judge-base-url" if flag == "--base-url" else "--base-url"
    res = invoke(_agent_run(tmp_path, flag, url, other, f"http://{HOST_GATEWAY}:9/v1"))
    assert_one_error_line(res, f"{flag}: {url} points at")
    assert HOST_GATEWAY in res.output and "0.0.0.0" in res.output
    assert not (tmp_path / "out").exists()


def test_a_loopback_url_in_a_config_names_its_line(tmp_path):
    config = tmp_path / "run.toml"
    config.write_text(
        f'[target]\nscenario = "{SCENARIO}"\n[agent]\nprovider = "openai-compat"\nmodel = "m"\n'
        'base_url = "http://localhost:8000/v1"\n[judge]\nprovider = "openai-compat"\nmodel = "j"\n'
        f'[run]\noutput_dir = "{tmp_path / "out"}"\n'
    )
    res = invoke(["run-config", "--config", str(config), "--dry-run"])
    assert_one_error_line(res, "run.toml:6 [agent] base_url: http://localhost:8000/v1 points at localhost")


def test_a_loopback_url_given_as_a_container_variable_is_refused_too(tmp_path):
    res = invoke(
        _agent_run(
            tmp_path,
            "--base-url",
            f"http://{HOST_GATEWAY}:9/v1",
            "--env",
            "GAIA2_JUDGE_BASE_URL=http://127.0.0.1:9/v1",
        )
    )
    assert_one_error_line(res, "--env GAIA2_JUDGE_BASE_URL: http://127.0.0.1:9/v1 points at 127.0.0.1")


def test_preflight_is_a_setting_on_by_default_and_off_by_flag_or_key(tmp_path):
    assert _plan(tmp_path).config.run.preflight is True
    assert _plan(tmp_path, preflight=False).config.run.preflight is False
    config = tmp_path / "run.toml"
    config.write_text(f'[target]\nscenario = "{SCENARIO}"\n[run]\npreflight = false\noutput_dir = "o"\n')
    assert apply_overrides(load_config(config), {}).run.preflight is False


# ---- the checks inside the container, run here against the scripted provider ----------------


def test_the_fake_provider_knows_the_probe_marker():
    assert PREFLIGHT_MARKER == inside.PROBE_MARKER.encode()


def _env(
    fake: FakeLLM, provider: str = "openai-compat", path: str = "/v1", runtime: str = "agent", **extra: str
) -> dict[str, str]:
    return {
        "GAIA2_RUNTIME": runtime,
        "GAIA2_AGENT_PROVIDER": provider,
        "GAIA2_AGENT_MODEL": "fake-model",
        "GAIA2_AGENT_BASE_URL": f"http://127.0.0.1:{fake.port}{path}",
        "GAIA2_AGENT_API_KEY": "sk-KEY-123",
        **extra,
    }


@pytest.mark.parametrize(
    "harness, provider, path, route",
    [
        (None, "openai-compat", "/v1", "/v1/chat/completions"),
        (None, "anthropic", "/v1", "/v1/messages"),
        (None, "gemini", "/v1beta", "/v1beta/models/fake-model:generateContent"),
        ("claude-code", "anthropic", "", "/v1/messages"),
        ("codex", "openai", "/v1", "/v1/responses"),
        ("gemini-cli", "gemini", "", "/v1beta/models/fake-model:generateContent"),
        ("hermes", "openai-compat", "/v1", "/v1/chat/completions"),
    ],
)
def test_the_agent_check_speaks_the_agent_s_wire(fake, monkeypatch, harness, provider, path, route):
    if harness:
        monkeypatch.setattr(probes, "PROFILE_PATH", HARNESSES / harness / "profile.toml")
    env = _env(fake, provider, path, runtime="harness" if harness else "agent")
    doc = inside.run(env, 10)
    agent = doc["agent"]
    assert agent["probe"]["status"] == 200 and agent["tools_probe"]["tool_call"] is True, agent
    assert agent["tools"] == "required" and doc["judge"] is None
    assert [p["path"] for p in fake.probes] == [route, route]
    assert fake.requests == []  # probes stay out of the scripted conversation's record


def test_the_built_in_agent_s_responses_option_is_honoured(fake):
    doc = inside.run(_env(fake, "openai", GAIA2_AGENT_OPTIONS=json.dumps({"api": "responses"})), 10)
    assert doc["agent"]["wire"] == "openai-responses" and fake.probes[0]["path"] == "/v1/responses"


def test_faults_are_reported_as_facts_without_the_key(fake):
    fake.set_script({"preflight": [{"status": 401, "message": "bad key sk-KEY-123"}]})
    probe = inside.run(_env(fake), 10)["agent"]["probe"]
    assert (probe["status"], probe["failure"]) == (401, None) and "sk-KEY-123" not in json.dumps(probe)
    assert probe["detail"] == "bad key [redacted]"
    fake.set_script({"preflight": [{"text": "OK"}, {"text": "I would rather not call it."}]})
    agent = inside.run(_env(fake), 10)["agent"]
    assert agent["probe"]["status"] == 200 and agent["tools_probe"]["tool_call"] is False


def test_a_dead_endpoint_and_an_unusable_setting(fake):
    dead = dict(_env(fake), GAIA2_AGENT_BASE_URL="http://127.0.0.1:9/v1")
    assert inside.run(dead, 10)["agent"]["probe"]["failure"] == "connect"
    bad = dict(_env(fake), GAIA2_AGENT_OPTIONS="{nope")
    assert inside.run(bad, 10)["agent"]["probe"]["failure"] == "settings"
    # A custom agent's options are its own: only the endpoint is checked, and tools are optional.
    custom = dict(bad, GAIA2_AGENT_COMMAND="my-agent")
    agent = inside.run(custom, 10)["agent"]
    assert agent["probe"]["status"] == 200 and agent["tools"] == "optional"


def test_are_s_default_agent_gets_no_tool_probe(fake):
    agent = inside.run(_env(fake, runtime="are-default"), 10)["agent"]
    assert agent["tools"] == "none" and agent["tools_probe"] is None and len(fake.probes) == 1
    assert fake.probes[0]["path"] == "/v1/chat/completions"


def test_an_openai_wire_judge_is_checked_with_its_engine_s_settings(fake):
    env = {
        "GAIA2_JUDGE_PROVIDER": "openai-compat",
        "GAIA2_JUDGE_MODEL": "fake-judge",
        "GAIA2_JUDGE_BASE_URL": f"http://127.0.0.1:{fake.port}/v1",
    }
    doc = inside.run(env, 10)
    assert doc["agent"] is None and doc["judge"]["probe"]["status"] == 200
    (probe,) = fake.probes
    assert probe["body"]["model"] == "fake-judge" and probe["headers"]["authorization"] == "Bearer none"
    assert "tools" not in probe["body"]


def test_the_expert_agents_own_endpoint_is_checked_and_the_agent_s_alone_is_not(fake):
    """Agent2Agent: an endpoint of the experts' own (URL or model) gets one text request with their
    key and model, as their relay would forward it; with the agent's settings only, no request."""
    a2a = {
        "GAIA2_A2A_APP_PROP": "1.0",
        "GAIA2_A2A_PROVIDER": "openai-compat",
        "GAIA2_A2A_MODEL": "expert-model",
        "GAIA2_A2A_BASE_URL": f"http://127.0.0.1:{fake.port}/v1",
        "GAIA2_A2A_API_KEY": "sk-EXPERT-9",
    }
    experts = inside.run({**_env(fake), **a2a}, 10)["experts"]
    assert (
        experts["probe"]["status"] == 200
        and experts["model"] == "expert-model"
        and experts["tools"] == "none"
    )
    sent = [p for p in fake.probes if p["body"]["model"] == "expert-model"]
    assert len(sent) == 1 and sent[0]["headers"]["authorization"] == "Bearer sk-EXPERT-9"
    assert "tools" not in sent[0]["body"] and sent[0]["path"] == "/v1/chat/completions"
    dead = inside.run({**_env(fake), **a2a, "GAIA2_A2A_BASE_URL": "http://127.0.0.1:9/v1"}, 10)["experts"]
    assert dead["probe"]["failure"] == "connect" and "sk-EXPERT-9" not in json.dumps(dead)
    assert inside.run({**_env(fake), "GAIA2_A2A_APP_PROP": "1.0"}, 10)["experts"] is None


# ---- the runner's words -------------------------------------------------------------------


@pytest.fixture(autouse=True)
def agent_key(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-unit-test")


def _plan(tmp_path: Path, **overrides):
    settings = {
        "scenario": SCENARIO,
        "output_dir": tmp_path / "out",
        "harness": "llm",
        "provider": "openai-compat",
        "model": "fake-model",
        "base_url": f"http://{HOST_GATEWAY}:8000/v1",
        "api_key_env": "MY_KEY",
        "judge_provider": "openai-compat",
        "judge_model": "fake-judge",
        "judge_base_url": f"http://{HOST_GATEWAY}:8001/v1",
        **overrides,
    }
    return plan_run(apply_overrides(load_config(None), settings))


def _facts(target: str, probe: dict, tools_probe: dict | None = None, tools: str = "required") -> dict:
    port = 8000 if target == "agent" else 8001
    return {
        "target": target,
        "base_url": f"http://{HOST_GATEWAY}:{port}/v1",
        "url": "",
        "model": f"fake-{target}",
        "wire": "openai-chat",
        "tools": tools if target == "agent" else "none",
        "probe": probe,
        "tools_probe": tools_probe,
    }


OK = {"status": 200, "failure": None, "detail": "", "seconds": 0.1}
CALLED = {**OK, "tool_call": True}


def _error(tmp_path: Path, agent: dict | None, judge: dict | None = None) -> str:
    with pytest.raises(Gaia2Error) as caught:
        assess({"agent": agent, "judge": judge or _facts("judge", OK)}, _plan(tmp_path))
    message = caught.value.message
    assert "\n" not in message
    return message


def test_connection_refused_names_the_flag_and_the_fix(tmp_path):
    message = _error(
        tmp_path,
        _facts(
            "agent",
            {"status": None, "failure": "connect", "detail": "ConnectError: [Errno 111] Connection refused"},
        ),
    )
    assert message.startswith(
        f"--base-url http://{HOST_GATEWAY}:8000/v1 (agent endpoint): connection refused"
    )
    assert "0.0.0.0" in message and "judge" not in message


def test_key_model_timeout_and_server_errors(tmp_path):
    assert "the key in MY_KEY (--api-key-env)" in _error(
        tmp_path, _facts("agent", {"status": 401, "detail": "no"})
    )
    message = _error(tmp_path, _facts("agent", {"status": 404, "detail": "The model `x` does not exist."}))
    assert (
        "HTTP 404 for model 'fake-agent'" in message and "--model" in message and "does not exist" in message
    )
    assert "--no-preflight" in _error(tmp_path, _facts("agent", {"status": None, "failure": "timeout"}))
    assert "HTTP 503, the server is failing" in _error(
        tmp_path, _facts("agent", {"status": 503, "detail": ""})
    )


def test_both_endpoints_failing_is_still_one_line(tmp_path):
    refused = {"status": None, "failure": "connect", "detail": "Connection refused"}
    message = _error(tmp_path, _facts("agent", refused), _facts("judge", refused))
    assert "--base-url" in message and "--judge-base-url" in message and "(judge endpoint)" in message


def test_tools_refused_by_the_server_stop_an_agent_that_sends_them(tmp_path):
    refused = {"status": 400, "failure": None, "detail": "tools need --enable-auto-tool-choice"}
    message = _error(tmp_path, _facts("agent", OK, refused))
    assert "does not accept tool definitions, which this agent sends" in message
    report = assess({"agent": _facts("agent", OK, refused, tools="optional"), "judge": None}, _plan(tmp_path))
    assert len(report.warnings) == 1 and "does not accept tool definitions" in report.warnings[0]


def test_what_an_agent_may_survive_is_a_warning(tmp_path):
    text_only = {**OK, "tool_call": False}
    report = assess({"agent": _facts("agent", OK, text_only), "judge": _facts("judge", OK)}, _plan(tmp_path))
    assert isinstance(report, PreflightReport) and len(report.warnings) == 1
    assert (
        "text, not a tool call" in report.warnings[0]
        and "text-format agents can still work" in report.warnings[0]
    )
    assert report.checked[0].endswith("tool calls: text only") and report.checked[1].startswith(
        "judge fake-judge"
    )
    limited = assess(
        {"agent": _facts("agent", {"status": 429, "detail": "slow down"}), "judge": None}, _plan(tmp_path)
    )
    assert "rate limiting already (HTTP 429)" in limited.warnings[0]
    healthy = assess({"agent": _facts("agent", OK, CALLED), "judge": _facts("judge", OK)}, _plan(tmp_path))
    assert healthy.warnings == [] and healthy.checked[0].endswith("tool calls: yes")


def test_the_expert_agents_endpoint_failing_names_their_settings(tmp_path):
    facts = {
        **_facts("agent", OK),
        "target": "experts",
        "model": "expert-model",
        "tools": "none",
        "base_url": f"http://{HOST_GATEWAY}:8002/v1",
        "tools_probe": None,
    }
    plan = _plan(
        tmp_path, a2a_app_prop=1.0, a2a_model="expert-model", a2a_base_url=f"http://{HOST_GATEWAY}:8002/v1"
    )
    with pytest.raises(Gaia2Error) as caught:
        assess(
            {
                "agent": _facts("agent", OK, CALLED),
                "judge": None,
                "experts": {
                    **facts,
                    "probe": {"status": None, "failure": "connect", "detail": "Connection refused"},
                },
            },
            plan,
        )
    assert caught.value.message.startswith(
        f"--a2a-base-url http://{HOST_GATEWAY}:8002/v1 (experts endpoint): connection refused"
    )
    with pytest.raises(Gaia2Error, match=r"HTTP 404 for model 'expert-model'.*--a2a-model"):
        assess(
            {"agent": None, "judge": None, "experts": {**facts, "probe": {"status": 404, "detail": "no"}}},
            plan,
        )
    report = assess({"agent": None, "judge": None, "experts": {**facts, "probe": OK}}, plan)
    assert report.checked == [f"experts expert-model at http://{HOST_GATEWAY}:8002/v1: answers in 0.1s"]
