"""The Docker engine through its REST API (the `docker` package): sandbox/engine.py's EngineDriver.

The create options are sandbox/docker_options.py's (the same policy as podman's, in Docker's
spelling) and every container joins sandbox/docker_network.py's isolated bridge. Things only this
driver does: it asks for the API version the engine speaks (up to docker-py's), once; it checks
once whether the engine host can grant the optional capabilities (docker_options); `stop` has no
"ignore" in docker-py, so errors are swallowed here; streams (logs, archives, builds) are raw HTTP
responses, read in chunks and closed, never joined in memory.

tcp:// engines use TLS from DOCKER_TLS_VERIFY / DOCKER_CERT_PATH (docker.utils.kwargs_from_env);
ssh:// hosts arrive as their tunnel's local unix:// socket (sandbox/ssh_tunnel.py).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, BinaryIO, NoReturn

import requests
from docker import APIClient
from docker.constants import DEFAULT_DOCKER_API_VERSION
from docker.errors import APIError, DockerException, NotFound, TLSParameterError
from docker.utils import kwargs_from_env, version_lt

from gaia2_runner.config.engines import DOCKER
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.api_errors import unreachable
from gaia2_runner.sandbox.build_stream import bare_id, follow_build
from gaia2_runner.sandbox.docker_network import ensure_isolated_network
from gaia2_runner.sandbox.docker_options import (
    API_VERSION_FLOOR,
    NO_NEW_PRIVILEGES,
    OPTIONAL_CAPABILITIES,
    create_options,
)
from gaia2_runner.sandbox.driver_common import published_host_port, streamed
from gaia2_runner.sandbox.engine import (
    BuildResult,
    ContainerRecord,
    ContainerSpec,
    EngineInfo,
    EngineUnavailable,
)

CONNECT_TIMEOUT_S = 10.0  # the one /version call that picks the API version
CAPS_REFUSED = "apply caps"  # runc's start error for a capability the engine host lacks
ALREADY_REMOVING = "already in progress"  # Docker's 409 while another client removes it


def tls_options(url: str) -> dict[str, Any]:
    """docker-py's `tls` argument for a tcp:// engine from DOCKER_TLS_VERIFY/DOCKER_CERT_PATH ({} else)."""
    if not url.startswith(("tcp://", "https://")):
        return {}
    try:
        tls = kwargs_from_env().get("tls")
    except (TLSParameterError, DockerException) as exc:
        raise Gaia2Error(
            f"DOCKER_CERT_PATH / DOCKER_TLS_VERIFY: {' '.join(str(exc).split())}: "
            "point DOCKER_CERT_PATH at a directory with ca.pem, cert.pem and key.pem"
        ) from None
    return {"tls": tls} if tls else {}


def api_message(exc: APIError) -> str:
    return " ".join(str(exc.explanation or exc).split())


def _response_message(exc: requests.HTTPError) -> str:
    """The engine's own message of a raw HTTP error answer."""
    resp = exc.response
    try:
        message = resp.json().get("message") if resp is not None else None
    except ValueError:
        message = None
    return " ".join(str(message or (resp.text if resp is not None else "") or exc).split())


class DockerDriver:
    """Docker's API at one URL (unix:// or tcp://; ssh:// hosts arrive as their tunnel's socket)."""

    name = DOCKER

    def __init__(self, url: str) -> None:
        self.url = url
        self._tls = tls_options(url)
        self._api: APIClient | None = None
        self._lock = threading.Lock()
        self._network: str | None = None
        self._grant_optional: bool | None = None

    # connection ---------------------------------------------------------------------------------
    @property
    def api(self) -> APIClient:
        """The client, at the API version the engine speaks (asked once, on first use)."""
        with self._lock:
            if self._api is None:
                self._api = APIClient(base_url=self.url, version=self._negotiate(), timeout=None, **self._tls)
            return self._api

    def _negotiate(self) -> str:
        probe = APIClient(
            base_url=self.url, version=API_VERSION_FLOOR, timeout=CONNECT_TIMEOUT_S, **self._tls
        )
        try:
            server = str(probe.version(api_version=False).get("ApiVersion") or API_VERSION_FLOOR)
        except (APIError, requests.RequestException) as exc:
            self._fail(exc, "ask its API version")
        finally:
            probe.close()
        return server if version_lt(server, DEFAULT_DOCKER_API_VERSION) else DEFAULT_DOCKER_API_VERSION

    def _url(self, path: str) -> str:
        api = self.api
        return f"{api.base_url}/v{api.api_version}{path}"

    def _fail(self, exc: BaseException, doing: str) -> NoReturn:
        if unreachable(exc) or isinstance(exc, requests.Timeout):  # a hung dockerd is an outage too
            raise EngineUnavailable(f"Docker API unreachable at {self.url}: cannot {doing}") from None
        if isinstance(exc, APIError):
            raise Gaia2Error(f"cannot {doing}: {api_message(exc)}") from None
        raise exc

    def ping(self, timeout: float = 3.0) -> bool:
        client = APIClient(base_url=self.url, version=API_VERSION_FLOOR, timeout=timeout, **self._tls)
        try:
            return bool(client.ping())
        except (DockerException, requests.RequestException):
            return False
        finally:
            client.close()

    def info(self) -> EngineInfo:
        try:
            version = self.api.version()
        except (APIError, requests.RequestException, Gaia2Error):
            return EngineInfo(DOCKER, "", "")
        return EngineInfo(DOCKER, str(version.get("Version", "")), str(version.get("ApiVersion", "")))

    def close(self) -> None:
        with self._lock:
            if self._api is not None:
                self._api.close()
                self._api = None

    # containers ---------------------------------------------------------------------------------
    def _prepare(self, spec: ContainerSpec) -> tuple[str, bool]:
        """The isolated network and whether the optional capabilities can be granted (once)."""
        api = self.api
        with self._lock:
            try:
                if self._network is None:
                    self._network = ensure_isolated_network(api)
                if self._grant_optional is None:
                    self._grant_optional = self._engine_grants_optional(api, spec)
            except (APIError, requests.RequestException) as exc:
                self._fail(exc, "set up the isolated network")
            return self._network, self._grant_optional is not False

    @staticmethod
    def _engine_grants_optional(api: APIClient, spec: ContainerSpec) -> bool | None:
        """Start a throw-away container of `spec.image` with only the optional capabilities: runc
        refuses before anything runs when the engine host lacks one. Any other outcome: granted.
        None when the probe cannot be created (no such image …): the real create will say why."""
        host_config = api.create_host_config(
            cap_drop=["ALL"],
            cap_add=list(OPTIONAL_CAPABILITIES),
            network_mode="none",
            read_only=True,
            security_opt=[NO_NEW_PRIVILEGES],
        )
        try:
            cid = api.create_container(
                spec.image,
                entrypoint=["true"],
                command=[],
                labels=dict(spec.labels),
                host_config=host_config,
                use_config_proxy=False,
            )["Id"]
        except APIError:
            return None
        try:
            api.start(cid)
        except APIError as exc:
            return CAPS_REFUSED not in api_message(exc)
        finally:
            with contextlib.suppress(APIError):
                api.remove_container(cid, v=True, force=True)
        return True

    def create(self, spec: ContainerSpec) -> str:
        network, grant_optional = self._prepare(spec)
        try:
            api = self.api
            return str(
                api.create_container(**create_options(spec, network, api.api_version, grant_optional))["Id"]
            )
        except (APIError, requests.RequestException) as exc:
            self._fail(exc, f"create a container from {spec.image}")

    def put_archive(self, cid: str, directory: str, tar: bytes) -> bool:
        try:
            return bool(self.api.put_archive(cid, directory, tar))
        except (APIError, requests.RequestException) as exc:
            self._fail(exc, f"copy into {directory} of the container")

    def start(self, cid: str) -> None:
        try:
            self.api.start(cid)
        except (APIError, requests.RequestException) as exc:
            self._fail(exc, "start a container")

    def state(self, cid: str) -> dict[str, Any] | None:
        try:
            return self.api.inspect_container(cid).get("State") or {}
        except NotFound:
            return {}
        except (APIError, requests.RequestException, Gaia2Error):
            return None

    def inspect(self, cid: str) -> dict[str, Any]:
        """The raw inspect JSON ({} when the container is gone)."""
        try:
            return dict(self.api.inspect_container(cid))
        except NotFound:
            return {}
        except (APIError, requests.RequestException) as exc:
            self._fail(exc, "inspect a container")

    def container_exists(self, cid: str) -> bool:
        return bool(self.inspect(cid))

    def published_port(self, cid: str, port: int) -> int:
        return published_host_port("Docker", self.inspect(cid), port)

    def _stream(
        self, path: str, params: Mapping[str, Any]
    ) -> contextlib.AbstractContextManager[Iterator[bytes]]:
        """A GET answer as chunks; the response is closed when the block ends."""
        return streamed(self.api.get(self._url(path), params=dict(params), stream=True))

    def open_logs(self, cid: str) -> contextlib.AbstractContextManager[Iterator[bytes]]:
        """stdout and stderr, framed (not a tty): container_logs.demux_logs takes the frames off."""
        return self._stream(f"/containers/{cid}/logs", {"stdout": 1, "stderr": 1})

    def open_archive(self, cid: str, path: str) -> contextlib.AbstractContextManager[Iterator[bytes]]:
        return self._stream(f"/containers/{cid}/archive", {"path": path})

    def stop(self, cid: str, timeout: int) -> None:
        """Never raises: already stopped (304) or gone is what was asked, and an unreachable
        engine is left to remove() and the next sweep."""
        with contextlib.suppress(APIError, requests.RequestException, Gaia2Error):
            self.api.stop(cid, timeout=timeout)

    def remove(self, cid: str) -> bool:
        try:
            self.api.remove_container(cid, v=True, force=True)  # and its volumes (output, uploads)
        except NotFound:
            pass
        except EngineUnavailable:
            return False
        except (APIError, requests.RequestException) as exc:
            if unreachable(exc):
                return False
            if isinstance(exc, APIError) and ALREADY_REMOVING in api_message(exc):
                return True
            self._fail(exc, f"remove container {cid[:12]}")
        return True

    def list_labelled(self, label: str) -> list[ContainerRecord]:
        try:
            found = self.api.containers(all=True, filters={"label": label})
        except (APIError, requests.RequestException) as exc:
            self._fail(exc, "list containers")
        return [
            ContainerRecord(
                id=str(c["Id"]),
                name=str((c.get("Names") or [c["Id"][:12]])[0]).lstrip("/"),
                state=str(c.get("State", "")),
                labels=dict(c.get("Labels") or {}),
                created=float(c.get("Created") or 0),
            )
            for c in found
        ]

    # images -------------------------------------------------------------------------------------
    def _image(self, ref: str) -> dict[str, Any] | None:
        try:
            return dict(self.api.inspect_image(ref))
        except NotFound:
            return None
        except (APIError, requests.RequestException) as exc:
            if unreachable(exc):
                self._fail(exc, f"look up image {ref}")
            return None

    def image_id(self, ref: str) -> str | None:
        image = self._image(ref)
        return bare_id(str(image["Id"])) if image and image.get("Id") else None

    def image_labels(self, ref: str) -> dict[str, str] | None:
        image = self._image(ref)
        return None if image is None else dict((image.get("Config") or {}).get("Labels") or {})

    def build(
        self, body: BinaryIO, params: Mapping[str, Any], log: Callable[[str], None] | None
    ) -> BuildResult:
        """POST /build with images.build_image's parameters (Docker's classic builder: `layers` is
        ignored, `networkmode=host` honoured); the id comes as an `aux` message."""
        try:
            resp = self.api.post(
                self._url("/build"),
                params=dict(params),
                data=body,
                headers={"Content-Type": "application/x-tar"},
                stream=True,
            )
            with contextlib.closing(resp):
                resp.raise_for_status()
                return follow_build(resp.iter_lines(), log)
        except requests.HTTPError as exc:
            return BuildResult(None, _response_message(exc))
        except requests.RequestException as exc:
            self._fail(exc, "build an image")
