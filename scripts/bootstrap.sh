#!/usr/bin/env bash
# Prepare this machine for gaia2-runner: podman + its API socket, a base image, and the project venv.
# Idempotent and quiet when everything is already there. Source it or run it; it prints the
# variables to use (CONTAINER_HOST, GAIA2_BASE_IMAGE) on its last lines.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared="${GAIA2_SHARED_DIR:-$repo/../shared}"
log() { echo "[bootstrap] $*" >&2; }

# 1. podman and its REST API socket. On the project's VMs the shared setup script knows their
#    cgroup quirks; elsewhere we only need podman installed.
if [ -x "$shared/podman/setup-host.sh" ] || [ -f "$shared/podman/setup-host.sh" ]; then
  bash "$shared/podman/setup-host.sh" >&2
elif ! command -v podman >/dev/null 2>&1; then
  log "podman is not installed: install it (Debian/Ubuntu: sudo apt-get install podman) and rerun"
  exit 1
fi
export CONTAINER_HOST="${CONTAINER_HOST:-unix:///run/podman/podman.sock}"

# 2. The base image the runtime image is built FROM. Without a reachable registry (these VMs),
#    build a local Debian one; otherwise the default python:3.12-slim is pulled by the build.
if [ -z "${GAIA2_BASE_IMAGE:-}" ] && [ -f "$shared/podman/build-base-image.sh" ]; then
  bash "$shared/podman/build-base-image.sh" >&2
  export GAIA2_BASE_IMAGE=localhost/gaia2-base:bookworm
fi

# 3. The host package in a project venv.
if [ ! -x "$repo/.venv/bin/gaia2-runner" ] || [ "$repo/pyproject.toml" -nt "$repo/.venv/.installed" ]; then
  log "installing gaia2-runner into $repo/.venv"
  python3 -m venv "$repo/.venv"
  "$repo/.venv/bin/pip" install -q -e "$repo[test]" >&2
  touch "$repo/.venv/.installed"
fi
echo "export CONTAINER_HOST=$CONTAINER_HOST"
[ -n "${GAIA2_BASE_IMAGE:-}" ] && echo "export GAIA2_BASE_IMAGE=$GAIA2_BASE_IMAGE"
exit 0
