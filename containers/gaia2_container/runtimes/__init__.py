"""Agent runtimes the daemon can start, and the tool-API client they share.

They run as the unprivileged agent user and reach the scenario only over the daemon's tool API,
so only `are_default` (ARE's own default agent, built by ARE's classes) imports ARE: `oracle`
replays the ground truth, `llm` is the tool-calling LLM agent, and `gaia2_cli` is the gaia2-cli
command surface (`calendar add-event ...`) the daemon puts on the agent's PATH.
"""
