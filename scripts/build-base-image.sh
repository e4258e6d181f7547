#!/usr/bin/env bash
# Build gaia2-runner's base image without any container registry: a Debian bookworm "minbase"
# root filesystem with Python 3 (3.11), venv, pip, CA certificates, curl and tzdata, made with
# mmdebstrap from the Debian mirror and turned into an image with `podman import` or `docker import`.
# Idempotent: does nothing when the image already exists (FORCE=1 rebuilds it). About a minute.
#
# Usage: scripts/build-base-image.sh IMAGE      (scripts/bootstrap.sh names it)
# Environment:
#   GAIA2_ENGINE          podman or docker: the engine that gets the image (default: podman when
#                         installed, else docker; Docker's socket as scripts/setup-docker.sh finds it)
#   GAIA2_DEBIAN_MIRROR   Debian mirror to build from (default http://deb.debian.org/debian)
#   GAIA2_DEBIAN_KEYRING  keyring that verifies it (default the debian-archive-keyring package's)
set -euo pipefail

tag=build-base-image
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Use the local engine (same image store as its API service), not a remote CONTAINER_HOST.
unset CONTAINER_HOST CONTAINER_CONNECTION

[ $# -eq 1 ] || die "usage: $0 IMAGE (scripts/bootstrap.sh names the local base image)"
image=$1
engine=${GAIA2_ENGINE:-auto}
if [ "$engine" = auto ]; then
  if command -v podman >/dev/null 2>&1; then engine=podman; else engine=docker; fi
fi
suite=bookworm
mirror=${GAIA2_DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=${GAIA2_DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
packages=python3,python3-venv,python3-pip,ca-certificates,curl,tzdata

case "$engine" in
  podman)
    command -v podman >/dev/null 2>&1 || die "podman is not installed (scripts/setup-podman.sh installs it)"
    has_image() { podman image exists "$image"; }
    import_rootfs() { podman import --quiet "$@"; }
    image_id() { podman image inspect --format '{{.Id}}' "$image"; } ;;
  docker)
    sock=$(docker_socket)
    [ "$(engine_at "$sock" || true)" = docker ] || die "Docker does not answer on unix://$sock (scripts/setup-docker.sh starts it)"
    has_image() { docker_has_image "$sock" "$image"; }
    import_rootfs() { docker_at "$sock" import "$@"; }
    image_id() { docker_at "$sock" image inspect --format '{{.Id}}' "$image" | sed 's/^sha256://'; } ;;
  *) die "GAIA2_ENGINE=$engine: use podman, docker or auto" ;;
esac
if [ "${FORCE:-0}" != 1 ] && has_image; then
  exit 0
fi

# mmdebstrap, and the Debian archive keyring: an Ubuntu host does not trust Debian's mirror
# by default (both packages are in Ubuntu's "universe").
missing=()
command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
[ -n "${GAIA2_DEBIAN_KEYRING:-}" ] || [ -r "$keyring" ] || missing+=(debian-archive-keyring)
if [ ${#missing[@]} -gt 0 ]; then
  apt_install "${missing[@]}"
fi
[ -r "$keyring" ] || die "Debian archive keyring $keyring not found"

work=$(mktemp -d -p "${TMPDIR:-/var/tmp}" gaia2-base.XXXXXX)  # /tmp may be a small tmpfs
trap 'rm -rf "$work"' EXIT
start=$SECONDS
# Fail early and clearly when the keyring cannot verify the suite (Ubuntu 22.04's
# debian-archive-keyring predates the keys that sign bookworm, for instance).
if [[ -f "$keyring" && "$keyring" == *.gpg ]] && command -v gpgv >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; then
  curl -fsSL --max-time 60 -o "$work/InRelease" "$mirror/dists/$suite/InRelease" \
    || die "cannot download $mirror/dists/$suite/InRelease (is the Debian mirror reachable?)"
  gpgv --keyring "$keyring" "$work/InRelease" >/dev/null 2>&1 \
    || die "$keyring cannot verify Debian $suite's Release file: install a current debian-archive-keyring or point GAIA2_DEBIAN_KEYRING at one"
fi
log "building $image: Debian $suite minbase + ${packages//,/ } from $mirror (about a minute)"
mmdebstrap --quiet --variant=minbase --include="$packages" --keyring="$keyring" \
  "$suite" "$work/rootfs.tar" "deb $mirror $suite main" \
  || die "mmdebstrap failed (is $mirror reachable?)"
import_rootfs --change 'CMD ["/bin/bash"]' --change 'ENV LANG=C.UTF-8' \
  "$work/rootfs.tar" "$image" >/dev/null \
  || die "$engine import failed"
log "$image built in $((SECONDS - start)) s in $engine ($(image_id | cut -c1-12))"
