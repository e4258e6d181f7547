"""The clock room: the simulated clock (sim.py), time for the agent's model calls to generate
(generation.py) and the agent process's faked calendar clock (process.py)."""
