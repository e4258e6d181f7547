"""A scripted stand-in for LLM providers, speaking their real wire formats (see server.py)."""
