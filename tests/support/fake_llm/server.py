"""Fake LLM provider for tests: OpenAI Chat/Responses, Anthropic Messages and Gemini, JSON and SSE.

    python tests/fake_llm/server.py --script script.json --log requests.jsonl [--port 0]

prints `PORT <n>` once listening on 0.0.0.0. The script is a JSON object of reply lists, keyed by
route (`chat`, `responses`, `anthropic`, `gemini`) or `default` for any route (a bare list means
`default`). Replies are used in order; each is one of
    {"text": "..."}                                          a plain answer
    {"tool_calls": [{"name": "...", "arguments": {...}}]}   tool calls (optionally with "text")
    {"status": 429, "retry_after": 1, "message": "..."}     an HTTP error (optionally "repeat": n; "code": the
                                                             error's code, e.g. Azure's "content_filter")
    {"by_turn": [reply, reply, ...]}                          the reply for the request's point in its conversation: the
                                                             n-th when it holds n model turns (the last one after that)
    {"echo_prompt": true, "text": "..."}                     a judge that quotes its input: the last user message,
                                                             then "text"
A reply with "delay_s": s is answered after s seconds (a slow model: a CPU server takes minutes),
whatever its kind; the preflight's scripted replies too.
A reply with "filter_word": w answers HTTP 400 with Azure's "content_filter" code to a request whose
messages hold w, as a provider's content filter does.
A script's "rules" list answers by what a request holds, before any queue, as a strict provider or
its front end does: {"contains": "text", "status": 401, "message": "..."} (an error in the route's
shape), {"contains": ..., "status": 403, "html": "<html>..."} (a firewall's page), {"contains": ...,
"drop": true} (the connection closed unanswered, as a front end drops an oversized body),
{"contains": ..., "text": "...", "delay_s": 75} (a plain answer after a long generation).
A reply with "context_chars": n answers HTTP 400 (a context overflow, in the provider's words) to a
request whose messages hold more than n characters, as a model with a small context does.
An empty {"text": ""} is a Chat Completions message with "content": null, as llama-server sends.
With `reject_null_content` set (`--reject-null-content`), a chat request holding a message whose
content is null gets HTTP 500, as llama-cpp-python's server answers it.
With `api_key` set (`--api-key`), a request that does not present that key (Authorization Bearer, x-api-key,
x-goog-api-key, api-key or `?key=`) gets HTTP 401, as a hosted provider answers a wrong key.
Every request (method, path, headers, JSON body, route; GET and HEAD too) is appended to the log, so tests can
check what a client sent. POST /_fake/script replaces the script; GET /_fake/requests lists them.

The runner's preflight probes (a body holding PREFLIGHT_MARKER, containers/gaia2_container/preflight.py)
stay out of the script and the log, so scripted conversations are unchanged: each takes the next
reply of the `preflight` list when there is one (to script a fault; {"working": true} is answered
as below, so a list can let the job's preflight through and fail the daemon's later probes), else
it is answered as a working model would (a call of the tool it offers, or "OK"); they are kept in
`probes`.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

try:
    from . import wire
except ImportError:  # run as a script
    import wire  # type: ignore[no-redef]

ROUTES = ("chat", "responses", "anthropic", "gemini")
PREFLIGHT_MARKER = b"gaia2-runner preflight"  # the container's preflight.PROBE_MARKER (a test checks)


def route_of(path: str) -> tuple[str | None, bool]:
    """(route, streaming-by-path) from the request path (Gemini says streaming in the path)."""
    bare = path.split("?", 1)[0]
    if bare.endswith("/chat/completions"):
        return "chat", False
    if bare.endswith("/responses"):
        return "responses", False
    if bare.endswith("/messages"):
        return "anthropic", False
    if bare.endswith(":streamGenerateContent"):
        return "gemini", True
    if bare.endswith(":generateContent"):
        return "gemini", False
    return None, False


class Script:
    """Reply queues per route; a reply with "repeat": n is served n times."""

    def __init__(self, doc: Any) -> None:
        if isinstance(doc, list):
            doc = {"default": doc}
        doc = dict(doc or {})
        self.rules: list[dict] = list(doc.pop("rules", []))
        self.queues: dict[str, list[dict]] = {}
        for key, replies in doc.items():
            queue: list[dict] = []
            for reply in replies:
                queue += [reply] * int(reply.get("repeat", 1))
            self.queues[key] = queue
        self.lock = threading.Lock()

    def next(self, route: str) -> dict | None:
        with self.lock:
            for key in (route, "default"):
                if self.queues.get(key):
                    return self.queues[key].pop(0)
        return None


class FakeLLM:
    """The server object; `start()` serves in a daemon thread and returns the port."""

    def __init__(
        self, script: Any = None, log_path: Path | None = None, host: str = "0.0.0.0", port: int = 0
    ) -> None:
        self.script = Script(script or {})
        self.log_path = Path(log_path) if log_path else None
        self.requests: list[dict] = []
        self.probes: list[dict] = []  # the runner's preflight requests (not in `requests`)
        self.reject_null_content = False
        self.api_key: str | None = None  # set: only requests presenting it are answered
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"fake": self})
        self.httpd = _Server((host, port), handler)
        self.port = self.httpd.server_address[1]

    def start(self) -> int:
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-llm", daemon=True
        ).start()
        return self.port

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def set_script(self, doc: Any) -> None:
        self.script = Script(doc)

    def record(self, entry: dict) -> None:
        with self._lock:
            self.requests.append(entry)
            if self.log_path:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry) + "\n")

    def llm_requests(self) -> list[dict]:
        return [r for r in self.requests if r["route"]]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # clients in parallel: the default accept queue of 5 resets some


class _Handler(BaseHTTPRequestHandler):
    fake: FakeLLM
    protocol_version = "HTTP/1.1"
    # An answer goes out as two small writes (headers, body): with Nagle on, the second waits for
    # the client's delayed ACK, ~40 ms per call (benchmarks/bench_probe.py measured it).
    disable_nagle_algorithm = True

    def log_message(self, *_args: Any) -> None:  # keep test output quiet
        pass

    def _send_json(self, status: int, doc: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _refused_key(self, route: str | None, body: Any = None) -> bool:
        """Answer 401 (and say so) when a key is required and this request does not present it.
        The request is recorded before the answer goes out: a client that reads `requests` once it
        has its 401 must find it there."""
        key = self.fake.api_key
        if key is None or key in _credentials(self.headers, self.path):
            return False
        self.fake.record(
            {
                "time": time.time(),
                "method": self.command,
                "path": self.path,
                "route": None,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body,
                "refused": "api_key",
            }
        )
        self._send_json(401, wire.error_body(route or "chat", 401, "fake_llm: incorrect API key provided"))
        return True

    def do_GET(self) -> None:
        if self.path.startswith("/_fake/requests"):
            self._send_json(200, {"requests": self.fake.requests})
        elif self._refused_key(None):
            return
        else:
            self._record_other()
            self._send_json(404, {"error": "not found"})

    def do_HEAD(self) -> None:
        self._record_other()
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _record_other(self) -> None:
        """Side requests (probes, model lists) are logged too, so tests can see every request."""
        self.fake.record(
            {
                "time": time.time(),
                "method": self.command,
                "path": self.path,
                "route": None,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": None,
            }
        )

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = None
        if self.path.startswith("/_fake/script"):
            self.fake.set_script(body)
            return self._send_json(200, {"ok": True})
        route, stream_path = route_of(self.path)
        if self._refused_key(route, body):
            return
        if route is not None and isinstance(body, dict) and PREFLIGHT_MARKER in raw:
            return self._probe(route, body, stream_path)
        self.fake.record(
            {
                "time": time.time(),
                "method": "POST",
                "path": self.path,
                "route": route,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body,
            }
        )
        if route is None:
            return self._send_json(404, {"error": f"fake_llm: no route for {self.path}"})
        if not isinstance(body, dict):
            return self._send_json(400, wire.error_body(route, 400, "body is not a JSON object"))
        if route == "chat" and self.fake.reject_null_content and _has_null_content(body):
            return self._send_json(500, wire.error_body(route, 500, "fake_llm: a message has null content"))
        rule = next((r for r in self.fake.script.rules if str(r.get("contains", "")).encode() in raw), None)
        if rule is not None:
            return self._rule(route, rule, body if isinstance(body, dict) else {})
        reply = self.fake.script.next(route)
        if reply is not None and reply.get("by_turn"):  # several conversations at once, each on its own path
            reply = reply["by_turn"][min(_model_turns(body), len(reply["by_turn"]) - 1)]
        if reply is None:
            return self._send_json(
                400, wire.error_body(route, 400, f"fake_llm: script exhausted for route {route}")
            )
        self._serve(route, reply, body, stream_path)

    def _rule(self, route: str, rule: dict, body: dict) -> None:
        """Answer as a strict provider or its front end does to what a request holds."""
        if rule.get("drop"):  # a front end that drops the request unread: no HTTP answer at all
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if rule.get("text") is not None:  # a plain answer, after the rule's `delay_s` (a long generation)
            return self._serve(route, rule, body, False)
        status = int(rule.get("status", 400))
        if rule.get("html"):
            data = str(rule["html"]).encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self._send_json(status, wire.error_body(route, status, rule.get("message", f"fake HTTP {status}")))

    def _probe(self, route: str, body: dict, stream_path: bool) -> None:
        with self.fake._lock:
            self.fake.probes.append(
                {
                    "time": time.time(),
                    "path": self.path,
                    "route": route,
                    "body": body,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                }
            )
        scripted = self.fake.script.queues.get("preflight")
        with self.fake.script.lock:
            reply = scripted.pop(0) if scripted else None
        if reply is None or reply.get("working"):
            tool = _first_tool(body)
            reply = {"tool_calls": [{"name": tool, "arguments": {}}]} if tool else {"text": "OK"}
        self._serve(route, reply, body, stream_path)

    def _serve(self, route: str, reply: dict, body: dict, stream_path: bool) -> None:
        time.sleep(float(reply.get("delay_s", 0)))
        if reply.get("context_chars") is not None and _prompt_chars(body) > int(reply["context_chars"]):
            message = (
                f"This model's maximum context length is {reply['context_chars']} characters, "
                f"your messages hold {_prompt_chars(body)}"
            )
            reply = {"status": 400, "message": message}
        elif reply.get("filter_word") and reply["filter_word"] in json.dumps(body.get("messages")):
            reply = {
                "status": 400,
                "code": "content_filter",
                "message": "The response was filtered due to the "
                "prompt triggering Azure OpenAI's content management policy (fake_llm).",
            }
        elif reply.get("echo_prompt"):
            reply = {**reply, "text": f"{_last_user_text(body)}\n{reply.get('text', '')}"}
        if reply.get("status"):
            status = int(reply["status"])
            headers = (
                {"Retry-After": str(reply["retry_after"])} if reply.get("retry_after") is not None else {}
            )
            error = wire.error_body(route, status, reply.get("message", f"fake HTTP {status}"))
            if reply.get("code") and isinstance(error.get("error"), dict):  # e.g. Azure's "content_filter"
                error["error"]["code"] = reply["code"]
            return self._send_json(status, error, headers)
        model = str(body.get("model") or self.path.split("/models/")[-1].split(":")[0])
        usage = _usage(body, reply)
        if stream_path or body.get("stream"):
            self._stream(route, reply, model, usage, body)
        else:
            builder = {
                "chat": wire.chat_json,
                "responses": wire.responses_json,
                "anthropic": wire.anthropic_json,
                "gemini": wire.gemini_json,
            }[route]
            self._send_json(200, builder(reply, model, usage))

    def _stream(self, route: str, reply: dict, model: str, usage: dict, body: dict) -> None:
        if route == "chat":
            include = bool((body.get("stream_options") or {}).get("include_usage"))
            events = wire.chat_sse(reply, model, usage, include)
        else:
            events = {
                "responses": wire.responses_sse,
                "anthropic": wire.anthropic_sse,
                "gemini": wire.gemini_sse,
            }[route](reply, model, usage)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for event in events:
            self.wfile.write(event)
            self.wfile.flush()


def _credentials(headers: Any, path: str) -> set[str]:
    """The keys a request presents, in every place a provider reads one."""
    found = {v.strip() for k, v in headers.items() if k.lower() in ("x-api-key", "x-goog-api-key", "api-key")}
    auth = (headers.get("Authorization") or "").strip()
    found.add(auth[7:].strip() if auth.lower().startswith("bearer ") else auth)
    found |= {v for k, v in parse_qsl(path.partition("?")[2]) if k == "key"}
    return found - {""}


def _has_null_content(body: dict) -> bool:
    messages = body.get("messages")
    return isinstance(messages, list) and any(
        isinstance(m, dict) and m.get("content", "") is None for m in messages
    )


def _messages_text(body: dict, roles: tuple[str, ...] = ()) -> list[str]:
    """The text of a Chat Completions request's messages (of `roles`, or all), in order."""
    texts = []
    for message in body.get("messages") or []:
        if isinstance(message, dict) and (not roles or message.get("role") in roles):
            content = message.get("content")
            texts.append(content if isinstance(content, str) else json.dumps(content))
    return texts


def _prompt_chars(body: dict) -> int:
    return sum(len(text) for text in _messages_text(body))


def _last_user_text(body: dict) -> str:
    users = _messages_text(body, ("user",))
    return users[-1] if users else ""


def _first_tool(body: dict) -> str | None:
    """The name of the first tool a request offers, in any of the four wire formats."""
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        declared = tool.get("functionDeclarations") or [tool.get("function") or tool]
        name = declared[0].get("name") if declared and isinstance(declared[0], dict) else None
        if name:
            return str(name)
    return None


def _model_turns(body: dict) -> int:
    """How many times the model already spoke in the request's conversation, in any wire format."""
    items = [
        *(body.get("messages") or []),
        *(body.get("contents") or []),
        *(body.get("input") if isinstance(body.get("input"), list) else []),
    ]
    return sum(
        1
        for item in items
        if isinstance(item, dict)
        and (item.get("role") in ("assistant", "model") or item.get("type") == "function_call")
    )


def _usage(body: dict, reply: dict) -> dict:
    """Deterministic token counts: roughly a token per four characters."""
    if "usage" in reply:
        return {"input": 0, "output": 0, "cached": 0, **reply["usage"]}
    produced = len(reply.get("text") or "") + len(json.dumps(reply.get("tool_calls") or []))
    return {"input": len(json.dumps(body)) // 4, "output": max(1, produced // 4), "cached": 0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--script", type=Path, help="JSON script of replies")
    parser.add_argument("--log", type=Path, help="append every request to this JSONL file")
    parser.add_argument(
        "--reject-null-content", action="store_true", help="answer 500 to a chat message with null content"
    )
    parser.add_argument("--api-key", help="answer 401 to requests that do not present this key")
    args = parser.parse_args(argv)
    script = json.loads(args.script.read_text()) if args.script else {}
    fake = FakeLLM(script, args.log, args.host, args.port)
    fake.reject_null_content = args.reject_null_content
    fake.api_key = args.api_key
    print(f"PORT {fake.port}", flush=True)
    try:
        fake.httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
