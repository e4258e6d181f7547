"""The facts the runner (host) and the container share, stated once and imported by both.

The host package `gaia2_runner` and the container package `gaia2_container` cannot import each
other, so what they must agree on lives here: the container's fixed places, ports, environment
variable names, statuses and output file names (`constants`), the daemon's HTTP routes (`routes`),
provider names (`providers`) and their default endpoints (`urls`), the Files app's data walk
(`files_tree`) and the harness profile schema (`harness_profile`). The host wheel ships it and the
image build copies the same source into every image next to `gaia2_container`
(docs/reference/container-contract.md).

Pure stdlib, nothing from either side, no import-time reads of the environment: a change here is a
change of the contract, and it rebuilds the images' code layer.
"""
