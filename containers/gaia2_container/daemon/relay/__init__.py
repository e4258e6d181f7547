"""The relay room: the model relay the agent calls through (proxy.py) on its HTTP handler
(handler.py), started from the run's environment (start.py), holding the real key (key.py),
reading bodies (body.py) and recording the calls (trace.py); the expert agents' relay
(experts.py). Others use the relay through the names below."""

from .experts import upstream_of
from .handler import serve_relay
from .proxy import Relay
from .start import run_credential, runner_setup, start_for_agent

__all__ = ["Relay", "run_credential", "runner_setup", "serve_relay", "start_for_agent", "upstream_of"]
