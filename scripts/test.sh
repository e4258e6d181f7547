#!/usr/bin/env bash
# Run the whole test suite: unit tests and integration tests in real podman containers.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
eval "$(bash "$repo/scripts/bootstrap.sh")"
bash "$repo/scripts/install-browser.sh"   # Debian chromium for the viewer's browser tests
cd "$repo"
exec "$repo/.venv/bin/python" -m pytest -ra --durations=25 "$@"
