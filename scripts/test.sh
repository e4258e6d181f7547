#!/usr/bin/env bash
# Run the whole test suite: unit tests and integration tests in real podman containers.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
eval "$(bash "$repo/scripts/bootstrap.sh")"
cd "$repo"
exec "$repo/.venv/bin/python" -m pytest -ra "$@"
