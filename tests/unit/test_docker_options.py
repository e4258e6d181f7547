"""Docker's create options for a scenario container: every item of the isolation and limits policy.

The options go through docker-py's own APIClient.create_container up to the request it would send
(no daemon: the last step is captured), so the assertions are on Docker's wire format.
"""

from __future__ import annotations

from typing import Any

import pytest
from docker import APIClient

from gaia2_runner.config.endpoints import HOST_GATEWAY
from gaia2_runner.config.limits import ContainerLimits
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.container_limits import CAPABILITIES, CPU_PERIOD_US, tmpfs_places
from gaia2_runner.sandbox.docker_driver import tls_options
from gaia2_runner.sandbox.docker_network import ICC_OPTION, network_problem
from gaia2_runner.sandbox.docker_options import (
    API_VERSION_FLOOR,
    NOFILE_LIMIT,
    OPTIONAL_CAPABILITIES,
    PODMAN_DEFAULT_CAPABILITIES,
    create_options,
)
from gaia2_runner.sandbox.engine import Bind, ContainerSpec, Tmpfs

LIMITS = ContainerLimits.of(memory="2g", cpus=1.5, pids=300, disk="64m")
NETWORK = "gaia2-isolated-test"


def spec(**changes: Any) -> ContainerSpec:
    fields: dict[str, Any] = dict(
        image="localhost/gaia2-oracle:latest",
        name="gaia2-x-abc123",
        env={"A": "1"},
        labels={"gaia2-runner": "1"},
        adapter_port=8090,
        host_port=40123,
        limits=LIMITS,
        tmpfs=tmpfs_places(LIMITS),
        binds=(Bind("/data/fs", "/gaia2/input/filesystem"),),
        upload_dirs=("/gaia2/input", "/gaia2/ca"),
        command=("serve",),
        entrypoint=("/entry",),
    )
    fields.update(changes)
    return ContainerSpec(**fields)


def wire(s: ContainerSpec, grant_optional: bool = True) -> dict[str, Any]:
    """The JSON body docker-py would POST to /containers/create for `s` (and its name)."""
    api = APIClient(base_url="unix:///nonexistent/docker.sock", version=API_VERSION_FLOOR)
    captured: dict[str, Any] = {}
    api.create_container_from_config = lambda config, name, platform=None: captured.update(config, _name=name)
    api.create_container(**create_options(s, NETWORK, API_VERSION_FLOOR, grant_optional))
    return captured


def test_identity_env_labels_command_entrypoint() -> None:
    body = wire(spec())
    assert body["_name"] == "gaia2-x-abc123" and body["Image"] == "localhost/gaia2-oracle:latest"
    assert body["Env"] == ["A=1"]  # nothing added (docker-py's config proxies are off)
    assert body["Labels"] == {"gaia2-runner": "1"}
    assert body["Cmd"] == ["serve"] and body["Entrypoint"] == ["/entry"]
    plain = wire(spec(command=None, entrypoint=None))
    assert plain.get("Cmd") is None and plain.get("Entrypoint") is None


def test_adapter_port_on_host_loopback_only() -> None:
    body = wire(spec())
    assert body["ExposedPorts"] == {"8090/tcp": {}}
    assert body["HostConfig"]["PortBindings"] == {"8090/tcp": [{"HostIp": "127.0.0.1", "HostPort": "40123"}]}
    picked = wire(spec(host_port=None))["HostConfig"]["PortBindings"]
    assert picked == {"8090/tcp": [{"HostIp": "127.0.0.1", "HostPort": ""}]}  # the engine picks


def test_isolated_network_and_host_gateway() -> None:
    body = wire(spec())
    assert body["HostConfig"]["NetworkMode"] == NETWORK
    assert body["NetworkingConfig"] == {"EndpointsConfig": {NETWORK: {}}}
    assert body["HostConfig"]["ExtraHosts"] == [f"{HOST_GATEWAY}:host-gateway"]


def test_capabilities_are_podmans_set_plus_the_daemons_without_net_raw() -> None:
    host = wire(spec())["HostConfig"]
    assert host["CapDrop"] == ["ALL"]
    assert set(host["CapAdd"]) == set(PODMAN_DEFAULT_CAPABILITIES) | {"SYS_RESOURCE", "NET_ADMIN"}
    assert set(CAPABILITIES) <= set(host["CapAdd"])
    assert not {"NET_RAW", "MKNOD", "AUDIT_WRITE", "SYS_ADMIN"} & set(host["CapAdd"])
    assert len(host["CapAdd"]) == len(set(host["CapAdd"]))
    without = wire(spec(), grant_optional=False)["HostConfig"]["CapAdd"]
    assert set(without) == set(host["CapAdd"]) - set(OPTIONAL_CAPABILITIES) and "NET_ADMIN" in without


def test_no_new_privileges_and_read_only_root() -> None:
    host = wire(spec())["HostConfig"]
    assert host["SecurityOpt"] == ["no-new-privileges"]
    assert host["ReadonlyRootfs"] is True


def test_limits_in_dockers_spelling() -> None:
    host = wire(spec())["HostConfig"]
    assert host["Memory"] == host["MemorySwap"] == LIMITS.memory_bytes  # no swap on top
    assert host["CpuPeriod"] == CPU_PERIOD_US and host["CpuQuota"] == int(1.5 * CPU_PERIOD_US)
    assert host["PidsLimit"] == 300
    assert host["ShmSize"] > 0
    assert host["CgroupnsMode"] == "private"
    # no nproc: it counts per uid across the host, one agent's fork bomb would starve the others
    assert sorted((u["Name"], u["Soft"], u["Hard"]) for u in host["Ulimits"]) == [
        ("nofile", NOFILE_LIMIT, NOFILE_LIMIT)
    ]
    log = host["LogConfig"]
    assert (
        log["Type"] == "json-file"
        and int(log["Config"]["max-size"]) > 0
        and int(log["Config"]["max-file"]) >= 1
    )


def test_every_tmpfs_sized_with_mode_and_exec_as_on_podman() -> None:
    tmpfs = wire(spec())["HostConfig"]["Tmpfs"]
    assert set(tmpfs) == {t.target for t in tmpfs_places(LIMITS)}
    for place in tmpfs_places(LIMITS):
        options = tmpfs[place.target].split(",")
        assert f"size={place.size_bytes}" in options and f"mode={place.mode}" in options
        assert "exec" in options and "noexec" not in options  # podman mounts them exec
        assert {"nosuid", "nodev"} <= set(options)
    noexec = wire(spec(tmpfs=(Tmpfs("/scratch", 1 << 20, "1777", exec=False),)))["HostConfig"]["Tmpfs"]
    assert "noexec" in noexec["/scratch"].split(",") and "exec" not in noexec["/scratch"].split(",")


def test_binds_read_only_and_upload_dirs_anonymous_volumes() -> None:
    body = wire(spec())
    assert body["HostConfig"]["Mounts"] == [
        {"Target": "/gaia2/input/filesystem", "Source": "/data/fs", "Type": "bind", "ReadOnly": True}
    ]
    assert body["Volumes"] == {"/gaia2/input": {}, "/gaia2/ca": {}}
    assert not body["HostConfig"].get("Binds")  # nothing from the host but the read-only binds
    assert not wire(spec(binds=(), upload_dirs=())).get("Volumes")


@pytest.mark.parametrize(
    ("network", "problem"),
    [
        ({"Driver": "bridge", "Options": {ICC_OPTION: "false"}}, None),
        ({"Driver": "bridge", "Options": {ICC_OPTION: "true"}}, "talk to each other"),
        ({"Driver": "bridge", "Options": {}}, "talk to each other"),  # Docker's default is ICC on
        ({"Driver": "overlay", "Options": {ICC_OPTION: "false"}}, "not 'bridge'"),
        ({"Driver": "bridge", "Options": {ICC_OPTION: "false"}, "Internal": True}, "internal"),
    ],
)
def test_network_fit_to_isolate(network: dict[str, Any], problem: str | None) -> None:
    found = network_problem(network)
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_tls_only_for_tcp_and_bad_cert_path_is_one_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setenv("DOCKER_TLS_VERIFY", "1")
    monkeypatch.setenv("DOCKER_CERT_PATH", str(tmp_path / "missing"))
    assert tls_options("unix:///var/run/docker.sock") == {}
    with pytest.raises(Gaia2Error, match="DOCKER_CERT_PATH"):
        tls_options("tcp://10.0.0.5:2376")
    monkeypatch.delenv("DOCKER_TLS_VERIFY")
    monkeypatch.delenv("DOCKER_CERT_PATH")
    assert tls_options("tcp://10.0.0.5:2375") == {}
