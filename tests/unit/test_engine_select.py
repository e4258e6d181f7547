"""Choosing the container engine (issue 25, sandbox/engine_select.py): against fake engines on real
unix sockets (and one on tcp) that answer /_ping and /version as podman 4.3 and Docker 20.10 do, so
the order (setting, $GAIA2_ENGINE, the given address, CONTAINER_HOST/DOCKER_HOST, the usual sockets)
and every refusal are seen through real HTTP."""

from __future__ import annotations

import json
import os
import shutil
import socket
import socketserver
import tempfile
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from gaia2_runner.config import apply_overrides, engines, environment, load_config, schema
from gaia2_runner.config.engines import DOCKER, PODMAN
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.engine import EngineInfo
from gaia2_runner.sandbox.engine_select import (
    ENGINE_FLAG,
    SETUP_SCRIPTS,
    candidate_urls,
    choose_engine,
    default_url,
    describe_engine,
    identify,
)
from gaia2_runner.sandbox.sandbox import make_driver

# What each engine's GET /version says (trimmed from the engines on the CI machine).
VERSIONS = {
    PODMAN: {
        "Platform": {"Name": "linux/amd64/debian-12"},
        "Version": "4.3.1",
        "ApiVersion": "1.41",
        "Components": [{"Name": "Podman Engine", "Version": "4.3.1"}, {"Name": "Conmon", "Version": "2.1.6"}],
    },
    DOCKER: {
        "Platform": {"Name": ""},
        "Version": "20.10.24+dfsg1",
        "ApiVersion": "1.41",
        "Components": [{"Name": "Engine", "Version": "20.10.24+dfsg1"}, {"Name": "containerd"}],
    },
    "other": {"Version": "1.0", "Components": [{"Name": "Something Else"}]},
}
NO_PATH = {"PATH": ""}  # no podman binary to fall back on


def _handler(kind: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            body = (
                b"OK"
                if self.path == "/_ping"
                else json.dumps(VERSIONS[kind]).encode()
                if self.path.endswith("/version")  # the drivers ask a versioned path (/v1.41/version)
                else b"{}"
            )
            self.send_response(200 if self.path == "/_ping" or self.path.endswith("/version") else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def address_string(self) -> str:  # a unix peer has no address
            return "unix"

        def log_message(self, *args: object) -> None:
            pass

    return Handler


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A directory with a short path: a unix socket's path is limited to 107 bytes."""
    directory = Path(tempfile.mkdtemp(prefix="es-", dir="/tmp"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def fake_engine(short_dir: Path) -> Iterator[Callable[[str], str]]:
    """Start a fake engine of a kind (podman, docker, other) on a unix socket; its unix:// URL."""
    servers: list[socketserver.BaseServer] = []

    def start(kind: str, name: str | None = None) -> str:
        path = short_dir / (name or f"{kind}{len(servers)}.sock")
        path.parent.mkdir(parents=True, exist_ok=True)
        server = _UnixHTTPServer(str(path), _handler(kind))
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return f"unix://{path}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_identify_asks_version_and_tells_the_engines_apart(fake_engine, short_dir: Path) -> None:
    assert identify(fake_engine(PODMAN)) == PODMAN
    assert identify(fake_engine(DOCKER)) == DOCKER
    assert identify(fake_engine("other")) is None  # answers, but is neither engine
    assert identify(f"unix://{short_dir}/nothing.sock") is None  # nothing listens
    assert identify("ssh://user@host/run/podman/podman.sock") is None  # only through its tunnel


def test_identify_over_tcp() -> None:
    server = HTTPServer(("127.0.0.1", 0), _handler(DOCKER))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        assert identify(f"tcp://127.0.0.1:{server.server_address[1]}") == DOCKER
    finally:
        server.shutdown()
        server.server_close()


def test_a_socket_that_never_answers_is_no_engine(short_dir: Path) -> None:
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(str(short_dir / "silent.sock"))
    silent.listen(1)  # accepts (the kernel does), never replies
    try:
        assert identify(f"unix://{short_dir}/silent.sock", timeout=0.2) is None
    finally:
        silent.close()


def test_an_explicit_setting_wins_over_the_variable_and_the_sockets(fake_engine) -> None:
    places = {PODMAN: [fake_engine(PODMAN)], DOCKER: [fake_engine(DOCKER)]}
    choice = choose_engine(DOCKER, environ={**NO_PATH, "GAIA2_ENGINE": PODMAN}, places=places)
    assert (choice.engine, choice.url, choice.reason) == (DOCKER, places[DOCKER][0], f"set by {ENGINE_FLAG}")
    choice = choose_engine(PODMAN, environ=NO_PATH, places=places, where="x.toml:3 [run] engine")
    assert (choice.engine, choice.url, choice.reason) == (
        PODMAN,
        places[PODMAN][0],
        "set by x.toml:3 [run] engine",
    )


def test_the_variable_decides_when_no_setting_is_given(fake_engine) -> None:
    places = {PODMAN: [fake_engine(PODMAN)], DOCKER: [fake_engine(DOCKER)]}
    choice = choose_engine(None, environ={**NO_PATH, "GAIA2_ENGINE": DOCKER}, places=places)
    assert (choice.engine, choice.url, choice.reason) == (DOCKER, places[DOCKER][0], "set by GAIA2_ENGINE")
    assert choose_engine(None, environ={**NO_PATH, "GAIA2_ENGINE": "auto"}, places=places).engine == PODMAN


@pytest.mark.parametrize(
    ("setting", "environ", "message"),
    [
        ("dokcer", {}, "--engine: unknown engine 'dokcer': use podman, docker, auto"),
        ("Docker", {}, "--engine: unknown engine 'Docker'"),
        (None, {"GAIA2_ENGINE": "x"}, "GAIA2_ENGINE: unknown engine 'x': use podman, docker, auto"),
        (None, {"GAIA2_ENGINE": "y" * 5000}, "GAIA2_ENGINE: unknown engine '" + "y" * 40 + "'"),
    ],
)
def test_a_bad_value_is_one_error_naming_where_and_the_choices(setting, environ, message) -> None:
    with pytest.raises(Gaia2Error) as caught:
        choose_engine(setting, environ=environ, places={})
    assert str(caught.value.message).startswith(message) and "\n" not in caught.value.message
    assert len(caught.value.message) < 200


def test_a_bad_value_in_a_toml_or_flag_names_its_place(tmp_path: Path) -> None:
    toml = tmp_path / "x.toml"
    toml.write_text(f'[target]\nscenario = "s.json"\n[run]\noutput_dir = "{tmp_path}/o"\nengine = "dokcer"\n')
    (tmp_path / "s.json").write_text("{}")
    with pytest.raises(
        Gaia2Error, match=r"x\.toml:5 \[run\] engine: unknown engine 'dokcer': use podman, docker, auto"
    ):
        apply_overrides(load_config(toml), {})
    with pytest.raises(Gaia2Error, match=r"^--engine: unknown engine 'x'"):
        apply_overrides(load_config(toml), {"engine": "x"})
    assert apply_overrides(load_config(toml), {"engine": DOCKER}).run.engine == DOCKER


def test_auto_asks_a_given_address_who_it_is(fake_engine, short_dir: Path) -> None:
    docker_url, podman_url = fake_engine(DOCKER), fake_engine(PODMAN)
    env = {**NO_PATH, "CONTAINER_HOST": podman_url}  # the address wins over the variables
    choice = choose_engine(None, docker_url, environ=env, places={})
    assert (choice.engine, choice.url, choice.reason) == (
        DOCKER,
        docker_url,
        f"auto: {docker_url} answers as docker",
    )
    assert choose_engine("auto", podman_url, environ=NO_PATH, places={}).engine == PODMAN
    silent = f"unix://{short_dir}/gone.sock"  # nothing to ask: podman, as before Docker; connect says what is wrong
    choice = choose_engine(None, silent, environ=NO_PATH, places={})
    assert (choice.engine, choice.url) == (PODMAN, silent) and "nothing answers" in choice.reason
    assert choose_engine(None, silent, environ={"DOCKER_HOST": silent}, places={}).engine == DOCKER


def test_auto_takes_container_host_as_podman_and_docker_host_as_docker(short_dir: Path) -> None:
    podman_host, docker_host = f"unix://{short_dir}/p.sock", "tcp://127.0.0.1:1"
    choice = choose_engine(None, environ={"CONTAINER_HOST": podman_host}, places={})
    assert (choice.engine, choice.url, choice.reason) == (PODMAN, podman_host, "auto: CONTAINER_HOST is set")
    choice = choose_engine(None, environ={"DOCKER_HOST": docker_host}, places={})
    assert (choice.engine, choice.url, choice.reason) == (DOCKER, docker_host, "auto: DOCKER_HOST is set")
    both = choose_engine(None, environ={"CONTAINER_HOST": podman_host, "DOCKER_HOST": docker_host}, places={})
    assert (both.engine, both.url) == (PODMAN, podman_host)


def test_auto_asks_the_variables_address_who_answers_there(fake_engine) -> None:
    """DOCKER_HOST at podman's socket (docker-compose on podman) is podman: the answer decides."""
    podman = fake_engine(PODMAN)
    choice = choose_engine(None, environ={"DOCKER_HOST": podman}, places={})
    assert (choice.engine, choice.url, choice.reason) == (
        PODMAN,
        podman,
        "auto: DOCKER_HOST answers as podman",
    )
    docker = fake_engine(DOCKER)
    assert choose_engine(None, environ={"CONTAINER_HOST": docker}, places={}).engine == DOCKER


def test_auto_probes_the_usual_sockets(fake_engine, short_dir: Path) -> None:
    gone = f"unix://{short_dir}/gone.sock"
    podman_url, docker_url = fake_engine(PODMAN), fake_engine(DOCKER)
    only_docker = choose_engine(None, environ=NO_PATH, places={PODMAN: [gone], DOCKER: [gone, docker_url]})
    assert (only_docker.engine, only_docker.url, only_docker.reason) == (
        DOCKER,
        docker_url,
        "auto: only docker answers",
    )
    only_podman = choose_engine(None, environ=NO_PATH, places={PODMAN: [podman_url], DOCKER: [gone]})
    assert (only_podman.engine, only_podman.url, only_podman.reason) == (
        PODMAN,
        podman_url,
        "auto: only podman answers",
    )
    both = choose_engine(None, environ=NO_PATH, places={PODMAN: [podman_url], DOCKER: [docker_url]})
    assert (both.engine, both.url) == (PODMAN, podman_url)
    assert "podman and docker both answer, podman chosen (--engine docker for Docker)" in both.reason


def test_podman_answering_on_dockers_socket_counts_as_podman(fake_engine) -> None:
    """podman-docker links /var/run/docker.sock to podman's socket: the answer decides, not the name."""
    impostor = fake_engine(PODMAN, "docker.sock")
    choice = choose_engine(None, environ=NO_PATH, places={PODMAN: [], DOCKER: [impostor]})
    assert (choice.engine, choice.url) == (PODMAN, impostor)
    with pytest.raises(
        Gaia2Error,
        match=r"--engine docker: .*docker\.sock answers as podman, not docker: start "
        r"docker \(scripts/setup-docker\.sh\) or use --engine podman",
    ):
        choose_engine(DOCKER, environ=NO_PATH, places={DOCKER: [impostor]})


def test_nothing_answering_falls_back_to_a_private_podman_service_or_one_error(short_dir: Path) -> None:
    gone = {PODMAN: [f"unix://{short_dir}/a.sock"], DOCKER: [f"unix://{short_dir}/b.sock"]}
    bin_dir = short_dir / "bin"
    bin_dir.mkdir()
    (bin_dir / "podman").write_text("#!/bin/sh\n")
    (bin_dir / "podman").chmod(0o755)
    choice = choose_engine(None, environ={"PATH": str(bin_dir)}, places=gone)
    assert (choice.engine, choice.url) == (PODMAN, None) and "private podman service" in choice.reason
    with pytest.raises(Gaia2Error) as caught:
        choose_engine(None, environ=NO_PATH, places=gone)
    assert SETUP_SCRIPTS[PODMAN] in caught.value.message and SETUP_SCRIPTS[DOCKER] in caught.value.message
    assert "\n" not in caught.value.message


def test_a_named_engine_with_nothing_answering_goes_to_its_default_place(short_dir: Path) -> None:
    gone = {PODMAN: [f"unix://{short_dir}/a.sock"], DOCKER: [f"unix://{short_dir}/b.sock"]}
    assert choose_engine(PODMAN, environ=NO_PATH, places=gone).url is None  # a private service may start
    assert choose_engine(DOCKER, environ=NO_PATH, places=gone).url == default_url(DOCKER)
    assert (
        choose_engine(DOCKER, environ={"DOCKER_HOST": "tcp://127.0.0.1:1"}, places=gone).url
        == "tcp://127.0.0.1:1"
    )


def test_a_named_engine_is_refused_where_the_other_one_answers(fake_engine) -> None:
    podman_url = fake_engine(PODMAN)
    with pytest.raises(
        Gaia2Error, match=r"--engine docker: .* answers as podman, not docker: drop the setting"
    ):
        choose_engine(DOCKER, podman_url, environ=NO_PATH, places={})
    assert choose_engine(PODMAN, podman_url, environ=NO_PATH, places={}).url == podman_url


def test_an_ssh_host_is_told_by_its_socket_path_or_asked_through_its_tunnel(fake_engine) -> None:
    docker_host, podman_host = "ssh://u@h/var/run/docker.sock", "ssh://u@h/run/podman/podman.sock"
    assert choose_engine(None, docker_host, environ=NO_PATH, places={}).engine == DOCKER
    assert choose_engine(None, podman_host, environ=NO_PATH, places={}).engine == PODMAN
    tunnel = fake_engine(DOCKER)  # the tunnel's local socket says who is at the other end
    choice = choose_engine(None, podman_host, environ=NO_PATH, places={}, api_url=tunnel)
    assert (choice.engine, choice.url) == (DOCKER, podman_host)
    assert choose_engine(DOCKER, docker_host, environ=NO_PATH, places={}).url == docker_host  # not asked


def test_the_usual_sockets_include_the_per_user_ones() -> None:
    env = {"XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/u"}
    assert candidate_urls(PODMAN, env) == [
        "unix:///run/podman/podman.sock",
        "unix:///run/user/1000/podman/podman.sock",
    ]
    assert candidate_urls(DOCKER, env) == [
        "unix:///var/run/docker.sock",
        "unix:///run/user/1000/docker.sock",
        "unix:///home/u/.docker/run/docker.sock",
    ]
    assert candidate_urls(DOCKER, {}) == [default_url(DOCKER)]


def test_the_plan_line_and_engine_info_from_version(fake_engine) -> None:
    info = make_driver(DOCKER, fake_engine(DOCKER)).info()
    assert info == EngineInfo(DOCKER, "20.10.24+dfsg1", "1.41")
    assert (
        describe_engine(info, "auto: only docker answers")
        == "docker 20.10.24+dfsg1 (API 1.41), auto: only docker answers"
    )
    assert make_driver(PODMAN, fake_engine(PODMAN)).info() == EngineInfo(PODMAN, "4.3.1", "1.41")


def test_the_settings_table_spells_the_engine_names_as_the_seam() -> None:
    assert schema.BY_NAME["engine"].choices == (*engines.ENGINES, engines.AUTO)
    assert engines.ENGINE_ENV == schema.BY_NAME["engine"].env_var
    # not given: $GAIA2_ENGINE, then auto (resolved in config/, the sandbox takes the value)
    assert schema.BY_NAME["engine"].default is environment.engine_from_env
    assert environment.engine_from_env({}) == engines.AUTO
    assert environment.engine_from_env({engines.ENGINE_ENV: DOCKER}) == DOCKER


def test_the_engine_module_imports_first_without_a_cycle() -> None:
    """sandbox/engine.py imports config; the settings table must not import it back."""
    import subprocess
    import sys

    for module in ("gaia2_runner.sandbox.engine", "gaia2_runner.sandbox.engine_select"):
        proc = subprocess.run(
            [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, env={**os.environ}
        )
        assert proc.returncode == 0, proc.stderr


# --- where the engine is shown and recorded ---------------------------------------------------
