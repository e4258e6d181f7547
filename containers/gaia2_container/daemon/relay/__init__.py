"""The relay room: the model relay the agent calls through (proxy.py), holding the real key
(key.py), reading bodies (body.py) and recording the calls (trace.py); the expert agents' relay
(experts.py)."""
