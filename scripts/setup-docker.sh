#!/usr/bin/env bash
# Make Docker Engine usable on this machine for gaia2-runner: the alternative to setup-podman.sh.
# Idempotent; says nothing on stderr when everything is already in place. The last line on stdout
# is `export DOCKER_HOST=unix://...`; messages go to stderr.
#
#   1. when nothing answers on the socket (needs root): installs Docker Engine from the
#      distribution's packages when dockerd is missing (docker.io, without recommends), and starts
#      it: systemd's unit where PID 1 is systemd, else dockerd by hand, detached, from /;
#   2. checks that Docker answers there (podman's Docker-compatible socket does not count) and is
#      20.10 or newer (the host-gateway alias the model relay's host name needs);
#   3. checks that bridged traffic passes iptables (bridge-nf-call-iptables = 1, loading
#      br_netfilter when needed): the rule that keeps scenario containers on the runner's bridge
#      from reaching each other (ICC off) is an iptables rule, which bridged frames skip otherwise;
#   4. refuses a Docker that routes its bridge to the host's loopback (route_localnet, what
#      "userland-proxy": false turns on): the runner publishes adapter ports on 127.0.0.1;
#   5. runs a tiny probe container (a busybox root filesystem imported as $probe_image, no
#      registry needed), unless an earlier probe left that image.
# When it starts dockerd it warns if Docker changed iptables' FORWARD policy (podman's netavark
# bridges forward through it; the runner's containers use slirp4netns and are not affected).
#
# Environment:
#   GAIA2_DOCKER_SOCKET  the socket to use (default: $DOCKER_HOST when it is unix://, else
#                        /var/run/docker.sock; for non-root users also rootless Docker's
#                        $XDG_RUNTIME_DIR/docker.sock). dockerd started here serves it.
set -euo pipefail

tag=setup-docker
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

probe_image=localhost/gaia2-setup-probe:busybox
min_api=1.41  # Docker 20.10: host-gateway in extra_hosts
pidfile=/run/gaia2-dockerd.pid
dockerd_log=/var/log/gaia2-dockerd.log
start_wait_s=60
bridge_nf=/proc/sys/net/bridge/bridge-nf-call-iptables
am_root() { [ "$(id -u)" -eq 0 ]; }

command -v curl >/dev/null 2>&1 || apt_install curl
sock=$(docker_socket)

# --- 1. install and start, only when nothing answers ---------------------------------------
forward_policy() { iptables -S FORWARD 2>/dev/null | sed -n 's/^-P FORWARD //p' || true; }
wait_for_docker() {  # $1 seconds
  local i
  for ((i = 0; i < $1 * 5; i++)); do sock_answers "$sock" && return 0; sleep 0.2; done
  return 1
}

started=
policy_before=
if ! sock_answers "$sock"; then
  if ! am_root; then
    if [ -S "$sock" ] && [ ! -w "$sock" ]; then
      die "permission denied on $sock: join the docker group (it is root-equivalent, see docs/guide/security.md), use rootless Docker, or run as root"
    fi
    die "Docker does not answer on unix://$sock and starting it needs root: sudo bash $0 (or start rootless Docker and set GAIA2_DOCKER_SOCKET)"
  fi
  command -v dockerd >/dev/null 2>&1 || apt_install --no-install-recommends docker.io
  command -v dockerd >/dev/null 2>&1 || die "no dockerd after installing docker.io"
  policy_before=$(forward_policy)
  running=$(pgrep -x -u 0 dockerd | head -n 1 || true)  # not a user's rootless one
  if [ -n "$running" ]; then
    # Starting up, or serving another socket: a second dockerd on the same data root cannot start.
    log "dockerd (pid $running) is running; waiting for it on unix://$sock"
    wait_for_docker "$start_wait_s" \
      || die "dockerd (pid $running) does not answer on unix://$sock within ${start_wait_s} s; point GAIA2_DOCKER_SOCKET at its socket, or stop it"
    started="dockerd pid $running, started elsewhere (the package's install, for instance)"
  elif [ -d /run/systemd/system ]; then
    log "starting Docker (systemctl enable --now docker)"
    systemctl enable --now docker >/dev/null 2>&1 || die "systemctl enable --now docker failed (journalctl -u docker)"
    wait_for_docker "$start_wait_s" \
      || die "Docker started by systemd does not answer on unix://$sock within ${start_wait_s} s (journalctl -u docker; its socket is /var/run/docker.sock)"
    started="started by systemd"
  else
    mkdir -p "$(dirname "$sock")"
    rm -f "$pidfile"  # no dockerd runs (pgrep above): a pid file left is stale, and would stop dockerd
    # From / and in its own session: dockerd (and the containerd it starts) outlives this script and
    # the shell, and keeps no checkout directory busy.
    (cd / && exec setsid nohup dockerd --host="unix://$sock" --pidfile="$pidfile" >"$dockerd_log" 2>&1 </dev/null) &
    wait_for_docker "$start_wait_s" \
      || die "dockerd did not answer on unix://$sock within ${start_wait_s} s; see $dockerd_log"
    started="started by hand: pid $(cat "$pidfile" 2>/dev/null || echo '?'), log $dockerd_log"
  fi
fi

# --- 2. it is Docker, new enough --------------------------------------------------------------
what=$(engine_at "$sock" || true)
[ "$what" = docker ] || die "unix://$sock answers, but not as Docker (${what:-unknown engine}): podman-docker links /var/run/docker.sock to podman; use scripts/setup-podman.sh for podman, or point GAIA2_DOCKER_SOCKET at Docker's socket"
version_json=$(curl -sf --max-time 5 --unix-socket "$sock" http://d/version)
field() { grep -o "\"$1\": *\"[^\"]*\"" <<<"$version_json" | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/'; }
version=$(field Version); api=$(field ApiVersion)
if [ "$(printf '%s\n%s\n' "$min_api" "$api" | sort -V | head -n 1)" != "$min_api" ]; then
  die "Docker $version (API $api) is too old: gaia2-runner needs Docker Engine 20.10 (API $min_api) or newer"
fi
[ -z "$started" ] || log "Docker $version (API $api) answers on unix://$sock ($started)"

if [ -n "$started" ] && [ -n "$policy_before" ]; then
  policy_after=$(forward_policy)
  if [ -n "$policy_after" ] && [ "$policy_after" != "$policy_before" ]; then
    log "WARNING: Docker changed iptables' FORWARD policy from $policy_before to $policy_after;" \
      "podman's bridge networks (netavark) stop forwarding (gaia2-runner's containers use slirp4netns" \
      "and are not affected); iptables -P FORWARD $policy_before restores it"
  fi
fi

# --- 3. bridged traffic passes iptables ---------------------------------------------------------
if [ "$(cat "$bridge_nf" 2>/dev/null)" != 1 ] && am_root; then
  [ -e "$bridge_nf" ] || modprobe br_netfilter 2>/dev/null || true
  [ ! -e "$bridge_nf" ] || echo 1 > "$bridge_nf" 2>/dev/null || true
fi
if [ "$(cat "$bridge_nf" 2>/dev/null)" != 1 ]; then
  why="$bridge_nf is $(cat "$bridge_nf" 2>/dev/null || echo 'missing (br_netfilter not loaded)')"
  die "$why: bridged traffic would skip iptables, and with it the rule that keeps scenario containers apart on Docker (ICC off). As root: modprobe br_netfilter && sysctl -w net.bridge.bridge-nf-call-iptables=1 (in a container or VM, on its host)"
fi

# --- 4. the host's loopback stays out of the bridge's reach --------------------------------------
localnet=/proc/sys/net/ipv4/conf/docker0/route_localnet
if [ "$(cat "$localnet" 2>/dev/null)" = 1 ]; then
  die "Docker routes its bridge to the host's loopback ($localnet is 1: \"userland-proxy\": false in /etc/docker/daemon.json?); the runner publishes adapter ports on 127.0.0.1, which scenario containers must not reach: remove that setting and restart Docker"
fi

# --- 5. a probe container ------------------------------------------------------------------------
if ! docker_has_image "$sock" "$probe_image"; then
  command -v docker >/dev/null 2>&1 || apt_install --no-install-recommends docker.io
  busybox=$(static_busybox || true)
  if [ -z "$busybox" ]; then
    apt_install busybox-static
    busybox=$(static_busybox) || die "no statically linked busybox found after installing busybox-static"
  fi
  probe_dir=$(mktemp -d)
  trap 'rm -rf "$probe_dir"' EXIT
  probe_rootfs "$probe_dir/rootfs" "$busybox"
  tar -C "$probe_dir/rootfs" -cf "$probe_dir/rootfs.tar" .
  docker_at "$sock" import "$probe_dir/rootfs.tar" "$probe_image" >/dev/null 2>"$probe_dir/err" \
    || die "docker import of the probe image failed: $(tail -n 1 "$probe_dir/err")"
  out=$(DOCKER_CLI_TIMEOUT=60 docker_at "$sock" run --rm --network none "$probe_image" /bin/sh -c 'echo ok' 2>"$probe_dir/err" || true)
  if [ "$out" != ok ]; then
    docker_at "$sock" rmi -f "$probe_image" >/dev/null 2>&1 || true  # its presence means "probe passed"
    die "Docker cannot run a container: $(grep -v '^\s*$' "$probe_dir/err" | tail -n 1 || echo 'no output (timed out after 60 s?)')"
  fi
  log "probe container ran on Docker $version"
fi

echo "export DOCKER_HOST=unix://$sock"
