#!/usr/bin/env bash
# Prepare this machine for gaia2-runner: a container engine (podman, or Docker) and its API socket, a
# base image, and the project venv. Idempotent and quiet when everything is already there. Source it
# or run it; it prints the variables to use (CONTAINER_HOST or DOCKER_HOST and GAIA2_ENGINE,
# GAIA2_BASE_IMAGE) on its last lines (stdout); messages go to stderr. Needs root on a fresh machine
# (it installs Debian/Ubuntu packages with apt-get).
#
# The engine: GAIA2_ENGINE=podman|docker; unset or auto: podman when CONTAINER_HOST is set, Docker
# when DOCKER_HOST is set, else podman when it is installed, else Docker when dockerd is installed
# or Docker answers, else podman (installed).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tag=bootstrap
# shellcheck source=lib.sh
. "$repo/scripts/lib.sh"
# podman on this machine, even when the caller already exported CONTAINER_HOST.
local_podman() { env -u CONTAINER_HOST -u CONTAINER_CONNECTION podman "$@"; }

engine=${GAIA2_ENGINE:-auto}
if [ "$engine" = auto ]; then
  if [ -n "${CONTAINER_HOST:-}" ]; then engine=podman
  elif [ -n "${DOCKER_HOST:-}" ]; then engine=docker
  elif command -v podman >/dev/null 2>&1; then engine=podman
  elif command -v dockerd >/dev/null 2>&1 || [ "$(engine_at "$(docker_socket)" || true)" = docker ]; then engine=docker
  else engine=podman
  fi
fi
case "$engine" in podman|docker) ;; *) die "GAIA2_ENGINE=$engine: use podman, docker or auto" ;; esac

# 1. The engine and its REST API socket.
#    Docker: scripts/setup-docker.sh installs Docker Engine when missing, starts it and checks it.
#    podman: scripts/setup-podman.sh installs podman when missing, applies the cgroup/ulimit
#    workaround only where a probe container fails, and starts the API service. A caller's
#    CONTAINER_HOST=unix://PATH names the socket to serve.
if [ "$engine" = docker ]; then
  docker_sock=$(bash "$repo/scripts/setup-docker.sh" | sed -n 's#^export DOCKER_HOST=unix://##p')
  [ -n "$docker_sock" ] || die "scripts/setup-docker.sh named no Docker socket"
  export DOCKER_HOST="${DOCKER_HOST:-unix://$docker_sock}"
else
  if [ -z "${GAIA2_PODMAN_SOCKET:-}" ]; then
    case "${CONTAINER_HOST:-}" in
      unix://*) export GAIA2_PODMAN_SOCKET=${CONTAINER_HOST#unix://} ;;
      *) if [ "$(id -u)" -eq 0 ]; then export GAIA2_PODMAN_SOCKET=/run/podman/podman.sock
         else export GAIA2_PODMAN_SOCKET=${XDG_RUNTIME_DIR:-/tmp/podman-run-$(id -u)}/podman/podman.sock; fi ;;
    esac
  fi
  bash "$repo/scripts/setup-podman.sh" >&2
  export CONTAINER_HOST="${CONTAINER_HOST:-unix://$GAIA2_PODMAN_SOCKET}"
fi

# 2. The base image the runtime image is built FROM, in the engine set up above: $GAIA2_BASE_IMAGE
#    when set; else the default python:3.12-slim when it is here or a registry hands it out quickly;
#    else (no registry, as on the project's VMs) a local Debian image built by
#    scripts/build-base-image.sh. This is the one place that names that local image.
local_base=localhost/gaia2-base:bookworm
default_base=docker.io/library/python:3.12-slim
has_image() {  # has_image REF: the engine set up above holds REF
  if [ "$engine" = docker ]; then docker_has_image "$docker_sock" "$1"; else local_podman image exists "$1"; fi
}
registry_answers() {  # bounded: a blocked network must not stall every run
  curl -s -o /dev/null --connect-timeout 3 --max-time 5 https://registry-1.docker.io/v2/
}
pull_default() {
  log "pulling $default_base"
  if [ "$engine" = docker ]; then
    DOCKER_CLI_TIMEOUT=60 docker_at "$docker_sock" pull -q "$default_base" >/dev/null
  else
    timeout 60 env -u CONTAINER_HOST -u CONTAINER_CONNECTION podman pull -q "$default_base" >/dev/null
  fi
}
if [ -z "${GAIA2_BASE_IMAGE:-}" ]; then
  if has_image "$default_base"; then
    :  # the default, pulled earlier
  elif has_image "$local_base"; then
    export GAIA2_BASE_IMAGE=$local_base  # chosen on an earlier run: no network probe again
  elif registry_answers && pull_default; then
    :
  else
    log "no container registry reachable: building the base image locally"
    GAIA2_ENGINE=$engine bash "$repo/scripts/build-base-image.sh" "$local_base" >&2
    export GAIA2_BASE_IMAGE=$local_base
  fi
fi
#    Docker beside podman (CI runs both engines): a base image podman holds is copied into Docker
#    when Docker answers here and lacks it (about 10 s), so runs with --engine docker build from
#    the same base. The default python:3.12-slim needs no copy: Docker's build pulls it.
if [ "$engine" = podman ] && [ -n "${GAIA2_BASE_IMAGE:-}" ] && local_podman image exists "$GAIA2_BASE_IMAGE"; then
  other_sock=$(docker_socket)
  if [ "$(engine_at "$other_sock" || true)" = docker ] && ! docker_has_image "$other_sock" "$GAIA2_BASE_IMAGE"; then
    log "copying $GAIA2_BASE_IMAGE from podman into Docker (unix://$other_sock)"
    local_podman save "$GAIA2_BASE_IMAGE" | docker_at "$other_sock" load -q >/dev/null \
      || log "WARNING: copying $GAIA2_BASE_IMAGE into Docker failed; runs on Docker cannot build their images"
  fi
fi

# 3. The host package in a project venv (Debian/Ubuntu ship venv support separately).
if [ ! -x "$repo/.venv/bin/gaia2-runner" ] || [ "$repo/pyproject.toml" -nt "$repo/.venv/.installed" ]; then
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
      die "python3 with venv support is missing (Debian/Ubuntu: sudo apt-get install python3-venv)"
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
if [ "$engine" = docker ]; then
  echo "export DOCKER_HOST=$DOCKER_HOST"
  echo "export GAIA2_ENGINE=docker"
else
  echo "export CONTAINER_HOST=$CONTAINER_HOST"
fi
[ -n "${GAIA2_BASE_IMAGE:-}" ] && echo "export GAIA2_BASE_IMAGE=$GAIA2_BASE_IMAGE"
exit 0
