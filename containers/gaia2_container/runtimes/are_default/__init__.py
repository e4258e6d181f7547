"""ARE's default agent (the scaffold behind `are-benchmark gaia2-run`) as a runtime: `GAIA2_RUNTIME=are-default`.

ARE's own classes do the work (prompts, ReAct loop, JSON action parsing, step limit, termination,
LiteLLM engine), built by ARE's own config and agent builders as `gaia2-run` builds them. What
lives in the daemon is reached through stand-ins: the app tools are AppTools whose function calls
the tool API, the notification queue is fed from the inbox, the time manager reads `/time`, and
the model endpoint is the daemon's relay. Unlike the other runtimes this one imports ARE (installed
in the image's venv); it still sees nothing but the tool API (docs/reference/are-default-agent.md).
"""
