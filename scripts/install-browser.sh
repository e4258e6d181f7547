#!/usr/bin/env bash
# Headless Chromium for the viewer's browser tests (Debian package; Playwright drives it with
# executable_path=/usr/bin/chromium, so `playwright install` is never needed). Idempotent.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "error: chromium is missing; run as root or: sudo apt-get install -y chromium" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium
command -v chromium
