from cli_support import assert_one_error_line, invoke


def test_missing_scenario_file(tmp_path):
    res = invoke(["run", "--scenario", str(tmp_path / "nope.json"), "--image", "img",
                  "--output-dir", str(tmp_path)])
    assert_one_error_line(res, "not found")


def test_malformed_scenario_file(write_scenario, tmp_path):
    path = write_scenario(text="{\n  \"a\": ,\n}")
    res = invoke(["run", "--scenario", str(path), "--image", "img", "--output-dir", str(tmp_path)])
    assert_one_error_line(res, "line 2, column 8")


def test_bad_env_pair(write_scenario, tmp_path):
    res = invoke(["run", "--scenario", str(write_scenario()), "--image", "img",
                  "--output-dir", str(tmp_path), "--env", "NOEQUALS"])
    assert_one_error_line(res, "KEY=VALUE")


def test_version():
    res = invoke(["--version"])
    assert res.exit_code == 0 and "0.1.0" in res.output


def test_podman_not_installed(write_scenario, tmp_path, monkeypatch):
    monkeypatch.delenv("CONTAINER_HOST", raising=False)
    monkeypatch.setattr("gaia2_runner.sandbox.podman.DEFAULT_URL", f"unix://{tmp_path}/none.sock")
    monkeypatch.setenv("PATH", str(tmp_path))  # no podman binary anywhere
    res = invoke(["run", "--scenario", str(write_scenario()), "--image", "img", "--output-dir", str(tmp_path)])
    assert_one_error_line(res, "apt-get install podman")


def test_podman_unreachable_at_container_host(write_scenario, tmp_path, monkeypatch):
    monkeypatch.setenv("CONTAINER_HOST", f"unix://{tmp_path}/dead.sock")
    monkeypatch.setenv("PATH", str(tmp_path))
    res = invoke(["run", "--scenario", str(write_scenario()), "--image", "img", "--output-dir", str(tmp_path)])
    assert_one_error_line(res, "fix CONTAINER_HOST")


def test_run_with_a_provider_but_no_key_fails_before_starting(write_scenario, tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    res = invoke(["run", "--scenario", str(write_scenario()), "--image", "img", "--output-dir", str(tmp_path),
                  "--provider", "anthropic", "--model", "m", "--judge-model", "j", "--judge-provider", "openai-compat",
                  "--judge-base-url", "http://host.containers.internal:9/v1"])
    assert_one_error_line(res, "needs an API key: set ANTHROPIC_API_KEY")
