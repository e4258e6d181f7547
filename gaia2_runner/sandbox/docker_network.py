"""The one Docker network every scenario container joins: a bridge with inter-container traffic off.

podman gives each container a user-mode network stack of its own (slirp4netns); Docker has nothing
like it. The closest is one runner-owned user-defined bridge with ICC off: containers on it reach
the host gateway and the outside (the model relay talks to the provider) but not each other, by IP
or by the name Docker's DNS resolves. Not one network per container (creating one costs time, and
the default address pools hold about 31), not `internal` (that also cuts the way out).
ICC=false is enforced by iptables on the bridge, which needs br_netfilter with
bridge-nf-call-iptables=1, and filters L3 only: raw L2 frames still pass, hence no NET_RAW
(sandbox/docker_options.py). The host's 127.0.0.1 stays out of reach as long as dockerd keeps its
userland proxy (the default).
"""

from __future__ import annotations

from typing import Any

from docker import APIClient
from docker.errors import APIError, NotFound

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.ownership import LABEL_RUNNER

NETWORK_NAME = "gaia2-isolated"
ICC_OPTION = "com.docker.network.bridge.enable_icc"
NETWORK_OPTIONS = {ICC_OPTION: "false"}
NETWORK_LABELS = {LABEL_RUNNER: "1"}
CONFLICT = 409


def network_problem(network: dict[str, Any]) -> str | None:
    """What makes an existing network unfit to isolate containers, or None when it is fit."""
    if network.get("Driver") != "bridge":
        return f"its driver is {network.get('Driver')!r}, not 'bridge'"
    if str((network.get("Options") or {}).get(ICC_OPTION, "true")).lower() != "false":
        return f"it lets containers talk to each other ({ICC_OPTION} is not false)"
    if network.get("Internal"):
        return "it is internal (no way out to the model provider)"
    return None


def ensure_isolated_network(api: APIClient, name: str = NETWORK_NAME) -> str:
    """Create the network on first use (another runner creating it at the same time is fine);
    refuse one of that name that would not isolate. Returns its name."""
    try:
        network = api.inspect_network(name)
    except NotFound:
        try:
            api.create_network(
                name,
                driver="bridge",
                options=dict(NETWORK_OPTIONS),
                labels=dict(NETWORK_LABELS),
                check_duplicate=True,
            )
        except APIError as exc:
            if exc.status_code != CONFLICT:
                raise
        network = api.inspect_network(name)
    problem = network_problem(network)
    if problem:
        raise Gaia2Error(
            f"Docker network {name} cannot isolate the scenario containers: {problem}. "
            f"Remove it (docker network rm {name}) and the runner creates it again with "
            f"{ICC_OPTION}=false"
        )
    return name
