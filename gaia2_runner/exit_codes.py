"""The exit codes of every `gaia2-runner` command, owned here and imported wherever a command exits.

0: done, every run has a verdict. 1: some run has no verdict (an infrastructure error, a missing
result) or a check failed. 2: the user's to fix (bad input, a configuration fault: one `error:`
line). 130: interrupted (Ctrl-C or SIGTERM; rerun the command to resume).
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_NO_VERDICT = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
