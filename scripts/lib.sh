# shellcheck shell=bash
# Shared by the machine-setup scripts (sourced, not run). The sourcing script sets `tag` first.

# shellcheck disable=SC2154  # tag: set by the sourcing script
log() { echo "[$tag] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# apt_install PKG...: install Debian/Ubuntu packages (root only), or stop with the command to run.
apt_install() {
  [ "$(id -u)" -eq 0 ] || die "missing packages: $*; run as root (or: sudo apt-get install $*)"
  command -v apt-get >/dev/null 2>&1 || die "missing packages: $*; no apt-get here, install them with your package manager"
  log "installing $* (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || die "apt-get update failed"
  apt-get install -y -qq "$@" >/dev/null || die "apt-get install $* failed"
  hash -r
}

# static_busybox: path of a statically linked busybox (a probe container's whole root filesystem).
static_busybox() {
  local bb
  for bb in "$(command -v busybox 2>/dev/null || true)" /bin/busybox /usr/bin/busybox; do
    { [ -n "$bb" ] && [ -x "$bb" ]; } || continue
    case "$(LC_ALL=C ldd "$bb" 2>&1 || true)" in  # ldd exits 1 on static binaries
      *"not a dynamic executable"*|*"statically linked"*) echo "$bb"; return 0 ;;
    esac
  done
  return 1
}

# probe_rootfs DIR BUSYBOX: a minimal root filesystem in DIR (busybox as /bin/sh) for a probe
# container that needs no image and no registry.
probe_rootfs() {
  mkdir -p "$1"/{bin,dev,etc,proc,sys,tmp}
  cp "$2" "$1/bin/busybox"
  ln -s busybox "$1/bin/sh"
  : > "$1/etc/passwd"; : > "$1/etc/group"
}

# sock_answers SOCK: 0 when an engine API answers GET /_ping on that unix socket (podman and Docker).
sock_answers() { curl -sf --max-time 3 --unix-socket "$1" http://d/_ping >/dev/null 2>&1; }

# engine_at SOCK: prints "docker" or "podman", whichever answers GET /version there (podman serves
# Docker's API too, and podman-docker links /var/run/docker.sock to it); status 1 when none does.
engine_at() {
  local version
  version=$(curl -sf --max-time 3 --unix-socket "$1" http://d/version 2>/dev/null) || return 1
  if grep -Eq '"Name": *"Podman Engine"' <<<"$version"; then echo podman
  elif grep -Eq '"Name": *"Engine"' <<<"$version"; then echo docker
  else return 1
  fi
}

# docker_socket: the local Docker API socket: $GAIA2_DOCKER_SOCKET, else $DOCKER_HOST when it is
# unix://, else /var/run/docker.sock, except for a non-root user whose rootless Docker answers on
# $XDG_RUNTIME_DIR/docker.sock while the system socket does not.
docker_socket() {
  if [ -n "${GAIA2_DOCKER_SOCKET:-}" ]; then echo "$GAIA2_DOCKER_SOCKET"; return 0; fi
  case "${DOCKER_HOST:-}" in unix://*) echo "${DOCKER_HOST#unix://}"; return 0 ;; esac
  local rootless="${XDG_RUNTIME_DIR:-/run/user/$(id -u)}/docker.sock"
  if [ "$(id -u)" -ne 0 ] && ! sock_answers /var/run/docker.sock && sock_answers "$rootless"; then
    echo "$rootless"
  else
    echo /var/run/docker.sock
  fi
}

# docker_at SOCK ARGS...: the docker CLI against that local socket, whatever DOCKER_HOST or a docker
# context say (a static CLI earlier on PATH than the distribution's is fine: it negotiates the API),
# bounded by $DOCKER_CLI_TIMEOUT seconds (default 600).
docker_at() {
  local sock=$1; shift
  timeout "${DOCKER_CLI_TIMEOUT:-600}" \
    env -u DOCKER_CONTEXT -u DOCKER_TLS_VERIFY -u DOCKER_CERT_PATH DOCKER_HOST="unix://$sock" docker "$@"
}

# docker_has_image SOCK REF: 0 when Docker on SOCK holds the image REF (asked over the API).
docker_has_image() { curl -sf -o /dev/null --max-time 10 --unix-socket "$1" "http://d/images/$2/json"; }
