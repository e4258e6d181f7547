"""An image build's JSON message stream, as both engines send it, turned into log lines and a result.

podman may send one character per message and ends with the bare image id as the last `stream`;
Docker's classic builder sends whole lines and the id as `{"aux": {"ID": "sha256:…"}}`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from gaia2_runner.sandbox.engine import BuildResult

TAIL_LINES = 50  # kept for the error message of a failed build


def bare_id(image_id: str) -> str:
    """An image id without Docker's "sha256:" prefix (podman never has one)."""
    return image_id.split(":", 1)[1] if image_id.startswith("sha256:") else image_id


def follow_build(lines: Iterable[bytes], log: Callable[[str], None] | None) -> BuildResult:
    """Reassemble the messages into text lines (sent to `log`), remember the last ones and the id."""
    pending, error, last_stream, aux_id = "", None, "", None
    tail: list[str] = []
    for raw in lines:
        if not raw:
            continue
        try:
            msg = json.loads(raw)
        except ValueError:
            msg = {"stream": raw.decode(errors="replace") + "\n"}
        if msg.get("error"):
            error = " ".join(str(msg["error"]).split())
        aux = msg.get("aux")
        if isinstance(aux, dict) and isinstance(aux.get("ID"), str):
            aux_id = bare_id(aux["ID"])
        chunk = msg.get("stream") or ""
        if chunk:
            last_stream = chunk
        pending += chunk
        while "\n" in pending:
            line, pending = pending.split("\n", 1)
            if line.strip():
                tail.append(line)
                del tail[:-TAIL_LINES]
                if log:
                    log(line)
    if pending.strip():
        tail.append(pending)
        if log:
            log(pending)
    image_id = aux_id or (last_stream.strip() if last_stream.strip().isalnum() else None)
    return BuildResult(image_id=image_id, error=error, tail=tail)
