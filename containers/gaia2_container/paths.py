"""Fixed locations inside the container, shared by the daemon, the CLIs and the runtimes."""

from __future__ import annotations

import os
from pathlib import Path

INPUT_DIR = Path(os.environ.get("GAIA2_INPUT_DIR", "/gaia2/input"))
OUTPUT_DIR = Path(os.environ.get("GAIA2_OUTPUT_DIR", "/gaia2/output"))
AGENT_HOME = Path(os.environ.get("GAIA2_AGENT_DIR", "/gaia2/agent"))
BIN_DIR = Path(os.environ.get("GAIA2_BIN_DIR", "/gaia2/bin"))
SCENARIO_FILE = INPUT_DIR / "scenario.json"

ADAPTER_PORT = int(os.environ.get("GAIA2_ADAPTER_PORT", "8090"))
TOOLS_HOST = "127.0.0.1"
TOOLS_PORT = int(os.environ.get("GAIA2_TOOLS_PORT", "8091"))
TOOLS_URL = os.environ.get("GAIA2_TOOLS_URL", f"http://{TOOLS_HOST}:{TOOLS_PORT}")
