#!/usr/bin/env bash
# Make podman usable on this machine and serve its REST API, which gaia2-runner talks to.
# Idempotent; prints nothing when everything is already in place. Messages go to stderr.
#
#   1. installs podman, runc, curl, slirp4netns and a static busybox with apt-get when missing
#      (needs root);
#   2. runs a tiny probe container (a busybox rootfs, no image or registry needed);
#   3. only if that probe fails: writes /etc/containers/containers.conf with runc, a private
#      cgroup namespace and explicit ulimits (VMs with a cgroup v1+v2 "hybrid" mount make crun
#      refuse to start, and podman's default rlimits can exceed what the VM allows), keeping a
#      backup of any previous file, and probes again;
#   4. starts `podman system service` on the API socket unless something already answers there.
#
# Environment:
#   GAIA2_PODMAN_SOCKET  socket path to serve (default /run/podman/podman.sock as root,
#                        $XDG_RUNTIME_DIR/podman/podman.sock otherwise)
set -euo pipefail

tag=setup-podman
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Talk to the local podman, never to a remote one a caller's CONTAINER_HOST may point at.
unset CONTAINER_HOST CONTAINER_CONNECTION

if [ "$(id -u)" -eq 0 ]; then
  sock=${GAIA2_PODMAN_SOCKET:-/run/podman/podman.sock}
  conf=/etc/containers/containers.conf
else
  sock=${GAIA2_PODMAN_SOCKET:-${XDG_RUNTIME_DIR:-/tmp/podman-run-$(id -u)}/podman/podman.sock}
  conf=${XDG_CONFIG_HOME:-$HOME/.config}/containers/containers.conf
fi
sock_dir=$(dirname "$sock")
pidfile="$sock_dir/gaia2-podman-service.pid"
service_log="$sock_dir/gaia2-podman-service.log"

# --- 1. packages -----------------------------------------------------------------------------
missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v curl >/dev/null 2>&1 || missing+=(curl)
static_busybox >/dev/null || missing+=(busybox-static)
# gaia2-runner gives every scenario container its own user-mode network stack (slirp4netns), so
# that no container can reach another one; rootful and rootless alike.
command -v slirp4netns >/dev/null 2>&1 || [ -x /usr/bin/slirp4netns ] || missing+=(slirp4netns)
if [ "$(id -u)" -eq 0 ]; then
  # Bridge networking (published ports) needs iptables, which Debian's podman only "suggests".
  command -v iptables >/dev/null 2>&1 || [ -x /usr/sbin/iptables ] || [ -x /sbin/iptables ] || missing+=(iptables)
else  # rootless podman needs subordinate id mapping
  command -v newuidmap >/dev/null 2>&1 || missing+=(uidmap)
fi
if [ ${#missing[@]} -gt 0 ]; then
  # uidmap and slirp4netns come along so that rootless use works later too; apt-get also pulls in
  # podman's recommends (netavark, catatonit, ...).
  apt_install "${missing[@]}" uidmap slirp4netns ca-certificates
fi
busybox=$(static_busybox) || die "no statically linked busybox found after installing busybox-static"

# --- 2./3. probe, and the containers.conf workaround only when needed -------------------------
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
rootfs="$probe_dir/rootfs"
probe_rootfs "$rootfs" "$busybox"

probe() {  # 0 when a container starts and prints "ok"; the last error line is left in probe_err
  local out
  out=$(timeout 60 podman run --rm --network none --rootfs "$rootfs" /bin/sh -c 'echo ok' 2>"$probe_dir/err") \
    && [ "$out" = ok ] && return 0
  probe_err=$(grep -v '^\s*$' "$probe_dir/err" | tail -n 1)
  [ -n "$probe_err" ] || probe_err="no output (timed out after 60 s?)"
  return 1
}

probe_err=
if ! probe; then
  log "probe container failed: $probe_err"
  log "writing $conf (runc, private cgroup namespace, explicit ulimits)"
  mkdir -p "$(dirname "$conf")"
  backup=
  if [ -e "$conf" ]; then
    backup="$conf.bak-$(date +%Y%m%d-%H%M%S)"
    cp -p "$conf" "$backup"
    log "previous $conf saved as $backup"
  fi
  cat > "$conf" <<'EOF'
# Written by gaia2-runner's scripts/setup-podman.sh because a probe container failed without it.
# Hosts that mount cgroup v1 and v2 together ("hybrid") make crun refuse to start containers:
# runc with a private cgroup namespace works there. Explicit ulimits keep podman from asking
# for more open files / processes than the VM grants (setrlimit: operation not permitted).
[containers]
cgroupns = "private"
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"
EOF
  if ! probe; then
    if [ -n "$backup" ]; then mv -f "$backup" "$conf"; else rm -f "$conf"; fi
    die "podman still cannot run a container with the workaround (reverted $conf): $probe_err"
  fi
  log "podman runs containers with the workaround"
fi

# --- 4. API service ---------------------------------------------------------------------------
ping() { sock_answers "$sock"; }
ping && exit 0

# A service we started earlier that no longer answers: stop it before starting a new one.
if [ -s "$pidfile" ]; then
  old=$(cat "$pidfile")
  if [ -n "$old" ] && [ -r "/proc/$old/cmdline" ] && tr '\0' ' ' <"/proc/$old/cmdline" | grep -q 'podman system service'; then
    log "stopping unresponsive API service (pid $old)"
    kill -TERM "$old" 2>/dev/null || true; kill -CONT "$old" 2>/dev/null || true
    for _ in $(seq 1 25); do  # gone, or a zombie nobody reaps (some hosts' pid 1 does not)
      case "$(sed -n 's/.*) \(.\).*/\1/p' "/proc/$old/stat" 2>/dev/null)" in ""|Z) break ;; esac
      sleep 0.2
    done
    kill -KILL "$old" 2>/dev/null || true
  fi
  rm -f "$pidfile"
fi

mkdir -p "$sock_dir"
[ -S "$sock" ] && rm -f "$sock"
# From /: the service (and every conmon it spawns) keeps its working directory for good, and one
# inside a checkout that is later deleted makes each container start fail ("Failed to get working
# directory", exit status 1).
(cd / && exec setsid nohup podman system service --time=0 "unix://$sock" >"$service_log" 2>&1 </dev/null) &
echo $! > "$pidfile"
for _ in $(seq 1 75); do ping && break; sleep 0.2; done
ping || die "podman API service did not answer on unix://$sock within 15 s; see $service_log"
log "started podman API service (pid $(cat "$pidfile")) on unix://$sock; log: $service_log"
