"""The session room: one scenario's run in ARE (core.py), its tools (toolbox.py,
app_commands.py), its events (recorder.py, event_mirror.py) and the status the runner polls
(status.py)."""
