"""gaia2-runner: evaluate agents on Meta's Gaia2 benchmark, one podman container per scenario.

The host side only speaks the HTTP contract in docs/container-contract.md, so any image that
honours it can be evaluated.
"""

__version__ = "0.1.0"

from gaia2_runner.errors import Gaia2Error  # noqa: E402

__all__ = ["Gaia2Error", "__version__"]
