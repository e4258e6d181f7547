"""The HTTP room: the JSON server both APIs run on (server.py), the agent's connection budget
(connections.py) and the routes of the adapter contract and the tool API (routes.py)."""
