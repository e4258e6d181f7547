#!/usr/bin/env bash
# Prepare this machine for gaia2-runner: podman + its API socket, a base image, and the project venv.
# Idempotent and quiet when everything is already there. Source it or run it; it prints the
# variables to use (CONTAINER_HOST, GAIA2_BASE_IMAGE) on its last lines (stdout); messages go to
# stderr. Needs root on a fresh machine (it installs Debian/Ubuntu packages with apt-get).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { echo "[bootstrap] $*" >&2; }
# podman on this machine, even when the caller already exported CONTAINER_HOST.
local_podman() { env -u CONTAINER_HOST -u CONTAINER_CONNECTION podman "$@"; }

# 1. podman and its REST API socket: scripts/setup-podman.sh installs podman when missing, applies
#    the cgroup/ulimit workaround only where a probe container fails, and starts the API service.
#    A caller's CONTAINER_HOST=unix://PATH names the socket to serve.
if [ -z "${GAIA2_PODMAN_SOCKET:-}" ]; then
  case "${CONTAINER_HOST:-}" in
    unix://*) export GAIA2_PODMAN_SOCKET=${CONTAINER_HOST#unix://} ;;
    *) if [ "$(id -u)" -eq 0 ]; then export GAIA2_PODMAN_SOCKET=/run/podman/podman.sock
       else export GAIA2_PODMAN_SOCKET=${XDG_RUNTIME_DIR:-/tmp/podman-run-$(id -u)}/podman/podman.sock; fi ;;
  esac
fi
bash "$repo/scripts/setup-podman.sh" >&2
export CONTAINER_HOST="${CONTAINER_HOST:-unix://$GAIA2_PODMAN_SOCKET}"

# 2. The base image the runtime image is built FROM: $GAIA2_BASE_IMAGE when set; else the default
#    python:3.12-slim when it is here or a registry hands it out quickly; else (no registry, as on
#    the project's VMs) a local Debian image built by scripts/build-base-image.sh.
local_base=localhost/gaia2-base:bookworm
default_base=docker.io/library/python:3.12-slim
registry_answers() {  # bounded: a blocked network must not stall every run
  curl -s -o /dev/null --connect-timeout 3 --max-time 5 https://registry-1.docker.io/v2/
}
pull_default() {
  log "pulling $default_base"
  timeout 60 env -u CONTAINER_HOST -u CONTAINER_CONNECTION podman pull -q "$default_base" >/dev/null
}
if [ -z "${GAIA2_BASE_IMAGE:-}" ]; then
  if local_podman image exists "$default_base"; then
    :  # the default, pulled earlier
  elif local_podman image exists "$local_base"; then
    export GAIA2_BASE_IMAGE=$local_base  # chosen on an earlier run: no network probe again
  elif registry_answers && pull_default; then
    :
  else
    log "no container registry reachable: building the base image locally"
    bash "$repo/scripts/build-base-image.sh" "$local_base" >&2
    export GAIA2_BASE_IMAGE=$local_base
  fi
fi

# 3. The host package in a project venv (Debian/Ubuntu ship venv support separately).
if [ ! -x "$repo/.venv/bin/gaia2-runner" ] || [ "$repo/pyproject.toml" -nt "$repo/.venv/.installed" ]; then
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
      log "ERROR: python3 with venv support is missing (Debian/Ubuntu: sudo apt-get install python3-venv)"; exit 1
    fi
    log "installing python3-venv (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq python3 python3-venv >/dev/null
  fi
  log "installing gaia2-runner into $repo/.venv"
  python3 -m venv "$repo/.venv"
  "$repo/.venv/bin/pip" install -q -e "${repo}[test]" >&2
  touch "$repo/.venv/.installed"
fi
echo "export CONTAINER_HOST=$CONTAINER_HOST"
[ -n "${GAIA2_BASE_IMAGE:-}" ] && echo "export GAIA2_BASE_IMAGE=$GAIA2_BASE_IMAGE"
exit 0
