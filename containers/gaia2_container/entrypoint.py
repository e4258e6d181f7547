"""Container entry point (runs as root): the daemon, which then starts the agent runtime; or, with
the argument `rejudge`, ARE's offline judge over a saved trace (gaia2_container/rejudge.py)."""

import sys

if __name__ == "__main__":
    if sys.argv[1:2] == ["rejudge"]:
        from .rejudge import main
    else:
        from .daemon.main import main
    raise SystemExit(main())
