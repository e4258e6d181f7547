"""Close the agent user's way out of the container: it keeps loopback (the model relay, the tool
API), nothing else.

The agent holds only a placeholder for the provider key (relay/key.py), so a call to the provider
around the relay is refused there; closing egress also stops calls to keyless endpoints, other
models or the web, which would be in neither the trace nor the cost, and keeps what the agent sees
to the scenario's world. The daemon (root) installs an nftables rule on the container's own network
namespace before it starts the agent: packets of sockets the agent's uid owns may leave on `lo`
only, to 127.0.0.1 (or ::1) only, the rest is rejected (a refused connection, at once, never a
hang). The daemon's own traffic (the relay, the judge) is untouched. It needs CAP_NET_ADMIN in the
container (the runner adds it:
gaia2_runner/sandbox/container_limits.py) and nft in the image (Containerfile.base); the daemon then drops
CAP_NET_ADMIN from its bounding set, so no process it starts, the agent included, can get it back.
Where that cannot be done, egress stays open and the status says why (never silently).
"""

from __future__ import annotations

import ctypes
import logging
import os
import shutil
import subprocess

log = logging.getLogger("gaia2.egress")

TABLE = "gaia2_egress"
NFT_FALLBACK = "/usr/sbin/nft"
NFT_TIMEOUT_S = 10.0
CLOSED = "closed"  # the status's `egress` when the rule is in place
LOOPBACK_V4 = "127.0.0.1"  # the one address the agent may reach (the daemon, the relay)
LOOPBACK_V6 = "::1"
_PR_CAPBSET_DROP = 24
_CAP_NET_ADMIN = 12


def ruleset(uid: int) -> str:
    """The nftables table: the agent's packets leave on loopback only, to 127.0.0.1 or ::1 only.

    Loopback is not enough by itself: Docker's embedded DNS server listens on 127.0.0.11 inside the
    container and resolves names (and so carries data) for whoever asks; podman's slirp4netns DNS
    is off loopback. The daemon and the relay listen on 127.0.0.1."""
    return (
        f"table inet {TABLE} {{\n"
        "  chain output {\n"
        "    type filter hook output priority 0; policy accept;\n"
        f'    meta skuid {uid} oifname != "lo" counter reject\n'
        f"    meta skuid {uid} ip daddr != {LOOPBACK_V4} counter reject\n"
        f"    meta skuid {uid} ip6 daddr != {LOOPBACK_V6} counter reject\n"
        "  }\n"
        "}\n"
    )


def close_agent_egress(uid: int | None) -> str:
    """Install the rule for the agent's `uid`; CLOSED, or "open: <why>" when it cannot be done."""
    if uid is None:
        return _open("the agent has no user of its own")
    if os.geteuid() != 0:
        return _open("the daemon is not root")
    nft = shutil.which("nft") or (NFT_FALLBACK if os.path.exists(NFT_FALLBACK) else None)
    if nft is None:
        return _open("nft is not installed in the image")
    try:
        proc = subprocess.run(
            [nft, "-f", "-"],
            input=ruleset(uid),
            capture_output=True,
            text=True,
            timeout=NFT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return _open(f"nft failed: {exc}")
    if proc.returncode != 0:
        why = " ".join(proc.stderr.split())[:300] or f"exit code {proc.returncode}"
        return _open(f"nft refused the rule (does the container have CAP_NET_ADMIN?): {why}")
    _drop_net_admin()
    log.info("egress closed for uid %d: loopback only", uid)
    return CLOSED


def _drop_net_admin() -> None:
    """Remove CAP_NET_ADMIN from the bounding set: nothing started from here on can undo the rule."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_CAPBSET_DROP, _CAP_NET_ADMIN, 0, 0, 0) != 0:
            log.warning("could not drop CAP_NET_ADMIN from the bounding set: errno %d", ctypes.get_errno())
    except (OSError, AttributeError) as exc:
        log.warning("could not drop CAP_NET_ADMIN from the bounding set: %s", exc)


def _open(why: str) -> str:
    log.warning("the agent's egress stays open: %s", why)
    return f"open: {why}"
