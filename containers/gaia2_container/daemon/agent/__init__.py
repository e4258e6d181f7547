"""The agent room: the agent process as its own user (process.py), its limits and why it stopped
(limits.py), its network closed to loopback (egress.py), the run's lifetime (watchdog.py), the
caps on what it writes (output_caps.py) and the files read as the agent (files.py)."""
