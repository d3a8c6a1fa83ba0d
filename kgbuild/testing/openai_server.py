"""A local OpenAI-compatible chat server with injectable faults (`kgbuild.testing`'s server).

It answers `POST /v1/chat/completions` on 127.0.0.1 from a background thread, so the real
`openai` client (and everything above it) runs its real code path: HTTP, JSON, status codes,
headers, timeouts and dropped connections. What the assistant says comes from a *responder*
(request body -> assistant content); what goes wrong comes from a `FaultPlan`, either a
deterministic queue or seeded random rates. Every request is recorded.

Example:
    >>> plan = FaultPlan(queue=[Fault.RATE_LIMIT, Fault.OK], retry_after=3)
    >>> with FakeOpenAIServer(responder=lambda body: '{"answer": 42}', faults=plan) as server:
    ...     backend = OpenAIBackend(base_url=server.base_url, api_key="test")
    ...     # the first request gets 429 + Retry-After: 3, the second succeeds
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import socket
import threading
import time
from collections.abc import Callable
from enum import StrEnum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.tokens import estimate_tokens

logger = logging.getLogger(__name__)

Responder = Callable[[dict[str, Any]], str]


class Fault(StrEnum):
    """What the server does with one request."""

    OK = "ok"
    RATE_LIMIT = "rate_limit"  # 429 with a Retry-After header
    SERVER_ERROR = "server_error"  # 500
    TIMEOUT = "timeout"  # sleep past the client's timeout, then answer normally
    SILENT = "silent"  # take the request and never answer (until the server stops)
    DROP = "drop"  # close the connection without a response
    TRUNCATED = "truncated"  # the responder's JSON cut in half, finish_reason "length"
    MALFORMED = "malformed"  # prose around broken JSON that no repair can fix
    SCHEMA_VIOLATION = "schema_violation"  # valid JSON, every value of the wrong type
    EMPTY = "empty"  # 200 with empty assistant content
    HTML = "html"  # 200 with an HTML page, as a misbehaving proxy or gateway sends


class FaultPlan(BaseModel):
    """Which faults to inject, in order (`queue`) and then at random (`rates`, seeded).

    Attributes:
        queue: Faults for the first requests, one per request in arrival order.
        rates: After the queue, the probability of each fault per request (sum <= 1).
        seed: Seed of the random draws, so a run is reproducible for a given arrival order.
        latency: Seconds every request waits before it is answered.
        retry_after: The Retry-After header (seconds) sent with 429.
        timeout_sleep: Seconds a TIMEOUT request sleeps (set it above the client's timeout).
        reject_response_format: `response_format` types the server answers with 400, like a
            server that does not support structured output.
    """

    model_config = ConfigDict(extra="forbid")

    queue: list[Fault] = Field(default_factory=list)
    rates: dict[Fault, float] = Field(default_factory=dict)
    seed: int = 0
    latency: float = Field(default=0.0, ge=0)
    retry_after: float = Field(default=1.0, ge=0)
    timeout_sleep: float = Field(default=5.0, ge=0)
    reject_response_format: set[str] = Field(default_factory=set)


class RecordedRequest(BaseModel):
    """One request the server received and what it did with it."""

    model_config = ConfigDict(extra="forbid")

    path: str
    body: dict[str, Any] | None
    authorization: str | None = Field(default=None, description="The Authorization header sent.")
    fault: Fault | None = Field(description="None when the request was rejected before the plan applied.")
    status: int | None = Field(description="HTTP status sent; None when the connection was dropped.")
    received: float = Field(default=0.0, description="When the request arrived (time.monotonic()).")


def wrong_types(content: str) -> str:
    """JSON that keeps the keys of `content` but gives every value the wrong type (and adds a key).

    Args:
        content: A JSON object as text (other text is replaced by a JSON list).

    Returns:
        JSON text that no model requiring those fields can validate.
    """
    try:
        value = json.loads(content)
    except json.JSONDecodeError:
        return '["not", "an", "object"]'
    if not isinstance(value, dict):
        return '{"unexpected": "an object where something else was expected"}'

    def flip(v: Any) -> Any:
        if isinstance(v, str):
            return 12345
        if isinstance(v, bool | int | float):
            return "not a number"
        if isinstance(v, list):
            return "not a list"
        if isinstance(v, dict):
            return ["not", "an", "object"]
        return {"not": "null"}

    broken = {k: flip(v) for k, v in value.items()}
    broken["unexpected_field"] = True
    return json.dumps(broken)


class FakeOpenAIServer:
    """An OpenAI-compatible `/v1/chat/completions` endpoint on 127.0.0.1 in a background thread.

    Args:
        responder: Maps a request body to the assistant's content; defaults to "{}".
        faults: The fault plan; defaults to no faults.
        port: 0 picks a free port.
        api_key: The key every request must send (`Authorization: Bearer KEY`); any other gets
            401 as OpenAI answers a wrong key. None accepts every request.

    Use it as a context manager; `base_url` is what `OPENAI_BASE_URL` would be.
    """

    def __init__(self, responder: Responder | None = None, faults: FaultPlan | None = None,
                 *, port: int = 0, api_key: str | None = None):
        self.responder: Responder = responder or (lambda body: "{}")
        self.api_key = api_key
        self.faults = faults or FaultPlan()
        self._queue = list(self.faults.queue)
        self._rng = random.Random(self.faults.seed)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._requests: list[RecordedRequest] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._httpd = _Server(("127.0.0.1", port), _make_handler(self))
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> Self:
        """Start serving in a daemon thread; returns self."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and wake every request still sleeping in a TIMEOUT or SILENT fault."""
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what tests read ---------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """The OpenAI base URL of this server, e.g. 'http://127.0.0.1:54321/v1'."""
        host, port = self._httpd.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else host
        return f"http://{name}:{port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def max_in_flight(self) -> int:
        """The most requests the server was working on at the same time."""
        with self._lock:
            return self._max_in_flight

    def count(self, fault: Fault | None = None) -> int:
        """Number of requests received, or of those that got `fault`."""
        with self._lock:
            return sum(1 for r in self._requests if fault is None or r.fault == fault)

    def wait_for_requests(self, n: int, timeout: float = 60.0) -> bool:
        """Block until at least `n` requests arrived; False if `timeout` seconds pass first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.count() >= n:
                return True
            time.sleep(0.01)
        return self.count() >= n

    # -- internals used by the handler -------------------------------------------------------
    def _next_fault(self) -> Fault:
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
            draw = self._rng.random()
        total = 0.0
        for fault, rate in self.faults.rates.items():
            total += rate
            if draw < total:
                return fault
        return Fault.OK

    def _record(self, entry: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(entry)

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stop.wait(seconds)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # The default listen backlog (5) drops connections when many requests start at once; the
    # client then waits a second for its SYN retransmission and may time out before we see it.
    request_queue_size = 1024


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as separate writes
        timeout = 60  # idle keep-alive connections end after this

        def log_message(self, format: str, *args: Any) -> None:
            logger.debug("fake server: " + format, *args)

        def do_GET(self) -> None:
            self._send_json(404, {"error": {"message": f"no route GET {self.path}", "type": "not_found"}})

        def do_POST(self) -> None:
            self._received = time.monotonic()
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._record(body=None, fault=None, status=404)
                self._send_json(404, {"error": {"message": f"no route POST {self.path}",
                                                "type": "not_found"}})
                return
            if server.api_key is not None and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                self._record(body=None, fault=None, status=401)
                self._send_json(401, {"error": {"message": "Incorrect API key provided.", "type":
                                                "invalid_request_error", "code": "invalid_api_key"}})
                return
            try:
                body = json.loads(raw)
            except json.JSONDecodeError:
                self._record(body=None, fault=None, status=400)
                self._send_json(400, {"error": {"message": "body is not JSON", "type": "invalid_request"}})
                return
            server._enter()
            self._left = False
            try:
                self._answer(body)
            finally:
                if not self._left:
                    server._leave()

        def _record(self, *, body: dict[str, Any] | None, fault: Fault | None, status: int | None) -> None:
            server._record(RecordedRequest(path=self.path, authorization=self.headers.get("Authorization"),
                                           body=body, fault=fault, status=status, received=self._received))

        def _finish(self, send: Callable[..., None], *args: Any) -> None:
            # Leave the in-flight count before the client can see the answer, so the count
            # never includes a request the client already considers finished.
            self._left = True
            server._leave()
            send(*args)

        def _answer(self, body: dict[str, Any]) -> None:
            format_type = (body.get("response_format") or {}).get("type")
            if format_type in server.faults.reject_response_format:
                self._record(body=body, fault=None, status=400)
                self._finish(self._send_json, 400, {"error": {
                    "message": f"response_format type '{format_type}' is not supported by this server",
                    "type": "invalid_request_error", "param": "response_format"}})
                return
            fault = server._next_fault()
            server._sleep(server.faults.latency)
            status: int | None = 200
            if fault in (Fault.DROP, Fault.SILENT):
                status = None
            elif fault is Fault.RATE_LIMIT:
                status = 429
            elif fault is Fault.SERVER_ERROR:
                status = 500
            self._record(body=body, fault=fault, status=status)
            if fault is Fault.DROP:
                self._finish(self._drop)
                return
            if fault is Fault.RATE_LIMIT:
                self._finish(
                    self._send_json, 429,
                    {"error": {"message": "Rate limit reached, retry later.", "type": "rate_limit"}},
                    {"Retry-After": f"{server.faults.retry_after:g}"})
                return
            if fault is Fault.HTML:
                self._finish(self._send_raw, 200, "text/html", b"<html><body>502 Bad Gateway</body></html>")
                return
            if fault is Fault.SERVER_ERROR:
                self._finish(self._send_json, 500,
                             {"error": {"message": "Injected server error.", "type": "server_error"}})
                return
            if fault is Fault.TIMEOUT:
                server._sleep(server.faults.timeout_sleep)
            if fault is Fault.SILENT:
                server._stop.wait()
                self._finish(self._drop)
                return
            try:
                content = server.responder(body)
            except Exception as e:
                logger.exception("fake server responder failed")
                self._finish(self._send_json, 500, {"error": {"message": f"responder failed: {e}",
                                                              "type": "server_error"}})
                return
            finish = "stop"
            if fault is Fault.TRUNCATED:
                content, finish = content[: max(1, len(content) // 2)], "length"
            elif fault is Fault.MALFORMED:
                content = "Here is what I found: " + content[: max(1, len(content) // 2)].replace('"', "'")
            elif fault is Fault.SCHEMA_VIOLATION:
                content = wrong_types(content)
            elif fault is Fault.EMPTY:
                content = ""
            prompt = sum(estimate_tokens(str(m.get("content", ""))) for m in body.get("messages", []))
            usage = {"prompt_tokens": prompt, "completion_tokens": estimate_tokens(content)}
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            self._finish(self._send_json, 200, {
                "id": f"chatcmpl-fake-{server.count()}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "fake"),
                "choices": [{"index": 0, "finish_reason": finish,
                             "message": {"role": "assistant", "content": content}}],
                "usage": usage,
            })

        def _send_json(self, status: int, payload: dict[str, Any],
                       headers: dict[str, str] | None = None) -> None:
            self._send_raw(status, "application/json", json.dumps(payload).encode(), headers)

        def _send_raw(self, status: int, content_type: str, data: bytes,
                      headers: dict[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
            except OSError:  # the client gave up (timeout) and closed the socket
                self.close_connection = True

        def _drop(self) -> None:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)

    return Handler
