"""scripts/are_parity.py end to end on the scripted provider: ARE's own `are-benchmark run` in the
runtime image and the runner's `--agent are-default` each solve the scenario and the table says so.
Also the runtime's settings, which the host's agent table must agree with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gaia2_runner.config.harnesses import BUILTIN
from harness_support import HOST, SCENARIOS
from test_are_default_agent import ADD, SEND

REPO = Path(__file__).resolve().parents[2]

from gaia2_container.runtimes.are_default import settings  # noqa: E402


@pytest.mark.integration
@pytest.mark.timeout(900)
def test_parity_script_runs_both_sides_on_the_same_server(backend, images, fake, tmp_path):
    fake.set_script({"chat": [ADD, SEND, ADD, SEND]})  # are-benchmark's run, then the runner's
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "are_parity.py"), "--model", "fake-model",
         "--base-url", f"http://{HOST}:{fake.port}/v1", "--scenarios", str(SCENARIOS / "demo_calendar_add_event.json"),
         "--output-dir", str(tmp_path / "parity"), "--timeout", "300"],
        capture_output=True, text=True, timeout=850, env={**os.environ, "PYTHONPATH": str(REPO / "containers")})
    assert proc.returncode == 0, (proc.stdout, proc.stderr,
                                  (tmp_path / "parity" / "are-benchmark" / "are-benchmark.log").read_text()[-3000:])
    assert "demo_calendar_add_event  PASS           PASS     yes" in proc.stdout, proc.stdout
    assert "1/1 verdicts agree" in proc.stdout
    requests = fake.llm_requests()
    assert len(requests) == 4
    # Both sides sent ARE's default agent's first prompt, byte for byte the same (the same server,
    # model name, system prompt, tool list and task), except the task's clock, which reads the same here.
    assert requests[0]["body"] == requests[2]["body"]


def test_runtime_settings_follow_gaia2_run():
    env = {"GAIA2_AGENT_PROVIDER": "openai-compat", "GAIA2_AGENT_MODEL": "Qwen/Qwen3-8B",
           "GAIA2_AGENT_BASE_URL": "http://127.0.0.1:8092/"}
    parsed = settings.EngineSettings.from_env(env)
    assert (parsed.model, parsed.endpoint, parsed.api_key) == ("openai/Qwen/Qwen3-8B", "http://127.0.0.1:8092",
                                                              "gaia2-no-key")
    assert settings.EngineSettings.from_env({**env, "GAIA2_AGENT_OPTIONS": "{}"}).model == "openai/Qwen/Qwen3-8B"
    for bad, words in [({"GAIA2_AGENT_PROVIDER": "anthropic"}, "chat completions"),
                       ({"GAIA2_AGENT_MODEL": ""}, "GAIA2_AGENT_MODEL"),
                       ({"GAIA2_AGENT_OPTIONS": json.dumps({"max_iterations": 5})}, "takes no options")]:
        with pytest.raises(settings.SettingsError, match=words):
            settings.EngineSettings.from_env({**env, **bad})


def test_the_host_offers_the_providers_the_runtime_accepts():
    harness = BUILTIN["are-default"]
    assert harness.providers == settings.PROVIDERS and harness.runtime == "are-default"
