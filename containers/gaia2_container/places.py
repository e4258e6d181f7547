"""The contract's places as resolved in this container: gaia2_contract's values unless the
environment overrides them.

Read once at import, as the daemon and the runtimes always have; the overrides serve tests and
custom images. The fixed values themselves are gaia2_contract.constants (shared with the runner).
"""

from __future__ import annotations

import os
from pathlib import Path

from gaia2_contract import constants

INPUT_PATH = Path(os.environ.get("GAIA2_INPUT_DIR", constants.INPUT_DIR))
OUTPUT_PATH = Path(os.environ.get("GAIA2_OUTPUT_DIR", constants.OUTPUT_DIR))
AGENT_HOME = Path(os.environ.get("GAIA2_AGENT_DIR", constants.AGENT_DIR))
BIN_PATH = Path(os.environ.get("GAIA2_BIN_DIR", constants.BIN_DIR))
SCENARIO_PATH = INPUT_PATH / constants.SCENARIO_FILE_NAME
FILESYSTEM_PATH = Path(os.environ.get("GAIA2_FILESYSTEM_DIR", constants.FILESYSTEM_DIR))

LISTEN_ADAPTER_PORT = int(os.environ.get(constants.ENV_ADAPTER_PORT, str(constants.ADAPTER_PORT)))
LISTEN_TOOLS_PORT = int(os.environ.get("GAIA2_TOOLS_PORT", str(constants.TOOLS_PORT)))
TOOLS_URL = os.environ.get(constants.ENV_TOOLS_URL, f"http://{constants.TOOLS_HOST}:{LISTEN_TOOLS_PORT}")
