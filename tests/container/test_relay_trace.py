"""The relay's record of model traffic (daemon/relay/trace.py), over real HTTP on loopback: a
provider, the relay in front of it, and a client, as in the container but without one."""

from __future__ import annotations

import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from gaia2_container.daemon.relay import Relay, serve_relay  # noqa: E402
from gaia2_container.daemon.relay.trace import BODY_CAP_BYTES, RelayTrace, model_of  # noqa: E402

KEY = "sk-relay-SECRET-123456"


def ANY_PATH(_path: str) -> None:  # noqa: N802 - these tests are about the record: the relay forwards any path
    return None


class Provider(BaseHTTPRequestHandler):
    """/sse streams three events, the third only once the test lets it go; /gzip answers gzipped
    whatever was asked; /big answers 5 MiB; anything else echoes a small JSON answer."""

    protocol_version = "HTTP/1.1"
    release = threading.Event()
    seen: list[dict] = []

    def log_message(self, *_args: object) -> None:
        pass

    def _reply(self, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        self.seen.append({"path": self.path, "headers": dict(self.headers)})
        self._reply(b'{"object": "list", "data": [{"id": "m1"}]}')

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.seen.append({"path": self.path, "headers": dict(self.headers)})
        if self.path.startswith("/v1/sse"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for n in range(2):
                self.wfile.write(f'data: {{"n": {n}}}\n\n'.encode())
                self.wfile.flush()
            assert self.release.wait(30)
            self.wfile.write(b"data: [DONE]\n\n")
        elif self.path.startswith("/v1/gzip"):
            self._reply(gzip.compress(b'{"zipped": true}'), {"Content-Encoding": "gzip"})
        elif self.path.startswith("/v1/big"):
            self._reply(b'"' + b"x" * (5 << 20) + b'"')
        else:
            self._reply(b'{"ok": true}')


@pytest.fixture
def setup(tmp_path: Path):
    Provider.release.clear()
    Provider.seen = []
    provider = ThreadingHTTPServer(("127.0.0.1", 0), Provider)
    threading.Thread(target=provider.serve_forever, daemon=True).start()
    trace = RelayTrace(tmp_path / "out" / "trace.jsonl", "gemini")
    relay = Relay(f"http://127.0.0.1:{provider.server_address[1]}/v1", trace=trace, paths=ANY_PATH)
    server = serve_relay(relay, "127.0.0.1", 0)
    http = httpx.Client(base_url=f"http://127.0.0.1:{server.server_address[1]}", trust_env=False, timeout=30)
    yield http, trace, provider.server_address[1]
    http.close()
    Provider.release.set()
    server.shutdown()
    provider.shutdown()


def lines(trace: RelayTrace) -> list[dict]:
    return [json.loads(line) for line in trace.path.read_text().splitlines()]


def test_a_call_is_recorded_in_format_a_without_keys(setup) -> None:
    http, trace, port = setup
    body = {"model": "gpt-x", "messages": [{"role": "user", "content": "hi"}]}
    answer = http.post(
        f"/chat/completions?key={KEY}&alt=json",
        json=body,
        headers={"Authorization": f"Bearer {KEY}", "x-api-key": KEY, "x-goog-api-key": KEY},
    )
    assert answer.json() == {"ok": True}
    assert Provider.seen[0]["headers"]["Authorization"] == f"Bearer {KEY}"  # forwarded unchanged
    [line] = lines(trace)
    assert line["seq"] == 0 and line["type"] == "llm_call" and line["http_status"] == 200
    assert line["url"] == f"http://127.0.0.1:{port}/v1/chat/completions?alt=json"
    assert line["request"] == body and line["raw_response"] == '{"ok": true}'
    assert (line["provider"], line["model"]) == ("gemini", "gpt-x")
    assert line["latency_ms"] >= 0 and line["timestamp"] > 1.7e9 and "error" not in line
    assert KEY not in trace.path.read_text()


def test_gemini_model_comes_from_the_path_and_get_requests_have_no_body(setup) -> None:
    http, trace, _ = setup
    http.post("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", json={"contents": []})
    http.get("/models")
    first, second = lines(trace)
    assert first["model"] == "gemini-2.5-flash" and first["request"] == {"contents": []}
    assert second["request"] is None and second["model"] is None and "data" in second["raw_response"]
    assert [first["seq"], second["seq"]] == [0, 1]
    assert model_of({"model": 3}, "/v1/models/a%2Fb:generateContent") == "a/b"


def test_streams_reach_the_client_as_they_come_and_are_recorded_whole(setup) -> None:
    http, trace, _ = setup
    with http.stream("POST", "/sse", json={"stream": True}) as response:
        chunks = response.iter_raw()
        seen = b""
        while seen.count(b"\n\n") < 2:  # both first events arrive while the provider still holds the last
            seen += next(chunks)
        assert not Provider.release.is_set()
        Provider.release.set()
        rest = b"".join(chunks)
    assert (seen + rest).endswith(b"data: [DONE]\n\n")
    [line] = lines(trace)
    assert line["raw_response"] == 'data: {"n": 0}\n\ndata: {"n": 1}\n\ndata: [DONE]\n\n'


def test_compressed_answers_pass_unchanged_and_are_recorded_readable(setup) -> None:
    http, trace, _ = setup
    answer = http.post("/gzip", json={}, headers={"Accept-Encoding": "gzip, br"})
    assert answer.headers["content-encoding"] == "gzip" and answer.json() == {"zipped": True}
    assert Provider.seen[0]["headers"]["Accept-Encoding"] == "identity"  # what the relay asked for
    [line] = lines(trace)
    assert line["raw_response"] == '{"zipped": true}'
    assert line["response_note"] == "decoded from content-encoding gzip"


def test_each_body_is_capped_and_the_call_still_succeeds(setup) -> None:
    http, trace, _ = setup
    big = "y" * (5 << 20)
    answer = http.post("/big", json={"model": "m", "input": big})
    assert len(answer.content) == (5 << 20) + 2  # the agent gets everything
    [line] = lines(trace)
    assert line["truncated"] == ["request", "raw_response"]
    assert len(line["raw_response"]) == BODY_CAP_BYTES and isinstance(line["request"], str)
    assert line["body_bytes"]["raw_response"] == (5 << 20) + 2


def test_the_total_is_capped_with_one_marker_line(tmp_path: Path, setup) -> None:
    http, _, port = setup
    trace = RelayTrace(tmp_path / "capped.jsonl", "openai", total_cap=2000)
    relay = Relay(f"http://127.0.0.1:{port}/v1", trace=trace, paths=ANY_PATH)
    server = serve_relay(relay, "127.0.0.1", 0)
    try:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{server.server_address[1]}", trust_env=False, timeout=30
        ) as flood:
            for n in range(25):
                assert flood.post("/x", json={"n": n, "pad": "p" * 50}).json() == {"ok": True}
    finally:
        server.shutdown()
    recorded = lines(trace)
    assert recorded[-1]["type"] == "truncated" and "2000 bytes" in recorded[-1]["message"]
    assert all(r["type"] == "llm_call" for r in recorded[:-1]) and len(recorded) < 25
    assert trace.path.stat().st_size <= 2000 + 200
    assert trace.dropped == 25 - trace.lines and trace.close() == len(recorded)


def test_an_unreachable_provider_is_recorded_as_an_error(tmp_path: Path) -> None:
    trace = RelayTrace(tmp_path / "t.jsonl", "anthropic")
    relay = Relay("http://127.0.0.1:9/v1", trace=trace, paths=ANY_PATH)  # nothing listens on port 9
    server = serve_relay(relay, "127.0.0.1", 0)
    try:
        answer = httpx.post(
            f"http://127.0.0.1:{server.server_address[1]}/messages", json={"model": "c"}, trust_env=False
        )
    finally:
        server.shutdown()
    assert answer.status_code == 502
    [line] = lines(trace)
    assert (
        line["http_status"] is None
        and line["error"].startswith("ConnectError")
        and line["raw_response"] == ""
    )


def test_a_broken_record_never_breaks_the_call(tmp_path: Path, setup) -> None:
    _, _, port = setup
    (tmp_path / "dir.jsonl").mkdir()  # opening it for appending fails
    relay = Relay(
        f"http://127.0.0.1:{port}/v1", trace=RelayTrace(tmp_path / "dir.jsonl", None), paths=ANY_PATH
    )
    server = serve_relay(relay, "127.0.0.1", 0)
    try:
        answer = httpx.post(f"http://127.0.0.1:{server.server_address[1]}/x", json={}, trust_env=False)
    finally:
        server.shutdown()
    assert answer.json() == {"ok": True}


def test_non_json_request_bodies_are_kept_as_text(setup) -> None:
    http, trace, _ = setup
    http.post("/x", content=b"not json \xff", headers={"Content-Type": "text/plain"})
    [line] = lines(trace)
    assert line["request"] == "not json \ufffd" and "truncated" not in line


def test_a_chunked_request_body_is_forwarded_and_recorded(setup) -> None:
    http, trace, _ = setup
    parts = iter([b'{"model": "chunky", ', b'"input": "hi"}'])
    answer = http.post(
        "/x", content=parts, headers={"Content-Type": "application/json"}
    )  # an iterator: chunked
    assert answer.json() == {"ok": True}
    [line] = lines(trace)
    assert line["request"] == {"model": "chunky", "input": "hi"} and line["model"] == "chunky"
