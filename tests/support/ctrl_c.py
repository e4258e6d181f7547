"""Children a test sends Ctrl-C (SIGINT) to, started as a terminal would start them."""

from __future__ import annotations

import signal


def restore_ctrl_c() -> None:
    """`preexec_fn` for such a child: a non-interactive shell's background job runs with SIGINT
    ignored, and an ignored signal stays ignored across exec, so the child would never see the
    test's Ctrl-C. The default disposition back (Python then installs its KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
