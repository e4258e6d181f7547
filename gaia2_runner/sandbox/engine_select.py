"""Which container engine the runner talks to, and where its API is.

Every command that starts containers or asks an engine (run, images, clean, judge, …) chooses the
same way, here, and says why (the plan's "engine" line). The order: an explicit setting (`--engine`,
`[run] engine`), then $GAIA2_ENGINE (both resolved by config/); under `auto`, a given address is
asked who it is (GET /version: podman answers Docker's API too, so a socket's name proves nothing,
its /version does), then CONTAINER_HOST means podman and DOCKER_HOST docker, then the usual
sockets are probed. Podman wins a tie because it needs no root daemon and was the runner's only
engine before; with nothing answering, podman still works when installed (the runner starts a
private service).
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from gaia2_runner.config.engines import AUTO, DOCKER, ENGINES, PODMAN
from gaia2_runner.config.environment import engine_requested
from gaia2_runner.config.schema import BY_NAME
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.engine import EngineInfo

DEFAULT_ENGINE = AUTO
ENGINE_SETTING = BY_NAME["engine"]
ENGINE_FLAG = ENGINE_SETTING.flag
# The variable that names each engine's API address (its own clients read it too).
HOST_ENV = {PODMAN: "CONTAINER_HOST", DOCKER: "DOCKER_HOST"}
# The system-wide API socket of each engine: where a connection goes when nothing else is named.
DEFAULT_URLS = {PODMAN: "unix:///run/podman/podman.sock", DOCKER: "unix:///var/run/docker.sock"}
# Per-user sockets, probed after the system one: (variable holding the directory, path under it).
# Rootless podman; rootless Docker; Docker Desktop.
USER_SOCKETS: dict[str, tuple[tuple[str, str], ...]] = {
    PODMAN: (("XDG_RUNTIME_DIR", "podman/podman.sock"),),
    DOCKER: (("XDG_RUNTIME_DIR", "docker.sock"), ("HOME", ".docker/run/docker.sock")),
}
SETUP_SCRIPTS = {PODMAN: "scripts/setup-podman.sh", DOCKER: "scripts/setup-docker.sh"}
IDENTIFY_TIMEOUT_S = 2.0  # one GET /version: a live engine answers in milliseconds
MAX_VERSION_BYTES = 1 << 20  # a /version answer is about 2 KB; an endless one is no engine
# /version's Components[].Name of each engine (podman's Docker-compatible answer says who it is).
COMPONENT_NAMES = {"Podman Engine": PODMAN, "Engine": DOCKER}


@dataclass(frozen=True)
class EngineChoice:
    """The engine to use and where. `url` None: the engine's default place (for podman, a private
    service when nothing answers there). `reason` words the choice for the plan."""

    engine: str
    url: str | None
    reason: str


class _UnixConnection(http.client.HTTPConnection):
    """HTTP over a unix socket (the engines' usual API address)."""

    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def version_document(url: str, timeout: float = IDENTIFY_TIMEOUT_S) -> dict | None:
    """The engine's GET /version answer at a unix:// or tcp:// (http://) address; None when nothing
    answers there in time, or not with JSON. ssh:// hosts are asked through their tunnel instead."""
    parts = urlsplit(url)
    try:
        if parts.scheme == "unix":
            connection: http.client.HTTPConnection = _UnixConnection(parts.path, timeout)
        elif parts.scheme in ("tcp", "http") and parts.hostname and parts.port:
            connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        else:
            return None
    except ValueError:  # a port out of range
        return None
    try:
        connection.request("GET", "/version")
        response = connection.getresponse()
        body = response.read(MAX_VERSION_BYTES + 1) if response.status == 200 else b""
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()
    try:
        doc = json.loads(body) if 0 < len(body) <= MAX_VERSION_BYTES else None
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def engine_of(doc: Mapping) -> str | None:
    """PODMAN or DOCKER from a /version document; None for anything else."""
    components = doc.get("Components")
    for component in components if isinstance(components, list) else []:
        name = component.get("Name") if isinstance(component, dict) else None
        if isinstance(name, str) and name in COMPONENT_NAMES:
            return COMPONENT_NAMES[name]
    return None


def identify(url: str, timeout: float = IDENTIFY_TIMEOUT_S) -> str | None:
    """Which engine answers at `url` (PODMAN or DOCKER); None when none does."""
    doc = version_document(url, timeout)
    return engine_of(doc) if doc is not None else None


def describe_engine(info: EngineInfo, reason: str | None = None) -> str:
    """The plan's engine line: "docker 20.10.24 (API 1.41), auto: only docker answers"."""
    return f"{info.engine} {info.version} (API {info.api_version})" + (f", {reason}" if reason else "")


def check_engine(value: str, where: str = ENGINE_FLAG) -> str:
    """`value` when it names an engine (or auto); else one error line naming `where` and the choices
    (the setting's own wording, as a TOML value gets it)."""
    problem = ENGINE_SETTING.problem(value) and ENGINE_SETTING.problem(value[:40])  # shown short
    if problem is not None:
        raise Gaia2Error(f"{where}: {problem}")
    return value


def default_url(engine: str) -> str:
    """The system-wide API socket of `engine` (PODMAN or DOCKER)."""
    return DEFAULT_URLS[engine]


def candidate_urls(engine: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """Where `engine`'s API usually is: the system socket, then the per-user ones."""
    env = os.environ if environ is None else environ
    urls = [default_url(engine)]
    for variable, tail in USER_SOCKETS[engine]:
        if env.get(variable):
            urls.append(f"unix://{os.path.join(env[variable], tail)}")
    return urls


def requested_engine(
    setting: str | None, environ: Mapping[str, str] | None = None, where: str = ENGINE_FLAG
) -> tuple[str, str]:
    """The engine asked for (PODMAN, DOCKER or AUTO) and who asked (`where`, ENGINE_ENV or "" for
    the default); a bad value is one error line. Cheap: callers check it before connecting. A run's
    config holds the engine already resolved; `None` (a command without one) asks $GAIA2_ENGINE
    the settings' way (config/environment.py)."""
    if setting is not None:
        return check_engine(setting, where), where
    engine, source = engine_requested(None, environ)
    return engine, source or ""


def choose_engine(
    setting: str | None,
    url: str | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    where: str = ENGINE_FLAG,
    api_url: str | None = None,
    places: Mapping[str, Sequence[str]] | None = None,
) -> EngineChoice:
    """The engine and its address. `setting`: the --engine/[run] engine value (None: not given),
    `where` names it in errors; `url`: a --host or [run] hosts address; `api_url`: where `url`
    answers when that is not `url` itself (an ssh:// host's tunnel socket), else an ssh:// host's
    engine is told by its socket path; `places`: the sockets probed per engine (default:
    candidate_urls). Raises Gaia2Error (one line) for a bad value or when no engine can be used."""
    env = os.environ if environ is None else environ
    engine, source = requested_engine(setting, env, where)
    origin = f"set by {source}" if source else ""
    sockets = places if places is not None else {name: candidate_urls(name, env) for name in ENGINES}
    if engine != AUTO:
        return _named(engine, origin, url, env, api_url, sockets)
    if url is not None:
        return _given(url, env, api_url)
    for name in ENGINES:  # podman first: CONTAINER_HOST wins when both are set
        if env.get(HOST_ENV[name]):
            address = env[HOST_ENV[name]]
            # DOCKER_HOST pointing at podman's socket is a common set-up (docker-compose on
            # podman): the variable's name proves nothing, the answer at the address does.
            who = None if address.startswith("ssh://") else identify(address)
            if who is not None and who != name:
                return EngineChoice(who, address, f"auto: {HOST_ENV[name]} answers as {who}")
            return EngineChoice(name, address, f"auto: {HOST_ENV[name]} is set")
    return _probed(sockets, env)


def _named(
    engine: str,
    origin: str,
    url: str | None,
    env: Mapping[str, str],
    api_url: str | None,
    sockets: Mapping[str, Sequence[str]],
) -> EngineChoice:
    """An engine the user named: its address, refused when another engine answers there."""
    if url is None and env.get(HOST_ENV[engine]):
        url = env[HOST_ENV[engine]]
    if url is not None:
        other = identify(api_url or url) if (api_url or not url.startswith("ssh://")) else None
        if other is not None and other != engine:
            raise Gaia2Error(
                f"{origin.removeprefix('set by ')} {engine}: {url} answers as {other}, not "
                f"{engine}: drop the setting (auto) or give {engine}'s address"
            )
        return EngineChoice(engine, url, origin)
    answers = {place: identify(place) for place in sockets.get(engine, ())}
    found = next((place for place, who in answers.items() if who == engine), None)
    if found is not None:
        return EngineChoice(engine, found, origin)
    impostor = next((place for place, who in answers.items() if who is not None), None)
    if impostor is not None:  # e.g. podman-docker's /var/run/docker.sock
        raise Gaia2Error(
            f"{origin.removeprefix('set by ')} {engine}: {impostor} answers as {answers[impostor]}, "
            f"not {engine}: start {engine} ({SETUP_SCRIPTS[engine]}) or use --engine "
            f"{answers[impostor]}"
        )
    # Nothing answers: podman's default place may get a private service; Docker's is its socket,
    # and connecting there says to start Docker.
    return EngineChoice(engine, None if engine == PODMAN else default_url(engine), origin)


def _given(url: str, env: Mapping[str, str], api_url: str | None) -> EngineChoice:
    """auto with an address: whoever answers there; by the socket path for an ssh:// host not yet
    reached; podman (as before Docker existed here) when nothing answers to say."""
    if url.startswith("ssh://") and api_url is None:
        engine = DOCKER if "docker" in urlsplit(url).path.rsplit("/", 1)[-1] else PODMAN
        return EngineChoice(engine, url, f"auto: {engine}, by the socket path of {url}")
    who = identify(api_url or url)
    if who is not None:
        return EngineChoice(who, url, f"auto: {url} answers as {who}")
    engine = DOCKER if env.get(HOST_ENV[DOCKER]) == url and not env.get(HOST_ENV[PODMAN]) else PODMAN
    return EngineChoice(engine, url, f"auto: nothing answers at {url} to say which, {engine} assumed")


def _probed(sockets: Mapping[str, Sequence[str]], env: Mapping[str, str]) -> EngineChoice:
    """auto with no address: the usual sockets, each asked who answers."""
    found: dict[str, str] = {}
    for name in ENGINES:
        for place in sockets.get(name, ()):
            who = identify(place)
            if who is not None and who not in found:
                found[who] = place
    if len(found) == 1:
        ((engine, place),) = found.items()
        return EngineChoice(engine, place, f"auto: only {engine} answers")
    if len(found) > 1:
        return EngineChoice(
            PODMAN,
            found[PODMAN],
            f"auto: podman and docker both answer, podman chosen ({ENGINE_FLAG} {DOCKER} for Docker)",
        )
    if shutil.which(PODMAN, path=env.get("PATH")):
        return EngineChoice(PODMAN, None, "auto: no engine answers, a private podman service")
    raise Gaia2Error(
        f"no container engine answers and podman is not installed: install one with "
        f"{SETUP_SCRIPTS[PODMAN]} or {SETUP_SCRIPTS[DOCKER]} (or name a running one with "
        f"{HOST_ENV[PODMAN]}, {HOST_ENV[DOCKER]} or {ENGINE_FLAG})"
    )
