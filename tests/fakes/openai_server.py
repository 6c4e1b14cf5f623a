"""A small OpenAI-compatible HTTP server for tests.

It runs the stdlib ``ThreadingHTTPServer`` on ``127.0.0.1`` (a free port) in a daemon thread
and implements:

* ``POST /v1/embeddings``: deterministic unit vectors derived from each input text
  (see :func:`fake_embedding`); ``input`` may be a string or a list of strings; a
  ``dimensions`` field in the request, when present, overrides the server's dimension.
* ``POST /v1/chat/completions``: the next queued answer (:meth:`FakeOpenAIServer.queue_chat`:
  a status, a message and extra headers, e.g. a 429 with ``Retry-After`` and then a JSON
  answer), or, with none queued, a canned assistant message (``chat_content``).
* ``GET /v1/models``: the model names it pretends to serve.

Every request is recorded in ``server.requests``. Set ``server.fail_status`` (e.g. 500)
to make every POST answer with that HTTP status and an OpenAI-style error body.

Use :func:`openai_server_fixture` to get a pytest fixture::

    openai_server = openai_server_fixture(dimension=8)

    def test_x(openai_server: FakeOpenAIServer) -> None:
        ...  # openai_server.base_url == "http://127.0.0.1:PORT/v1"
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal

import pytest

DEFAULT_EMBEDDING_DIMENSION = 16
DEFAULT_CHAT_CONTENT = '{"ok": true}'


@dataclass(frozen=True)
class QueuedChat:
    """One queued answer to ``POST /v1/chat/completions``."""

    status: int = 200
    content: str = DEFAULT_CHAT_CONTENT  # the assistant message (200) or the error message
    headers: dict[str, str] = field(default_factory=dict)


def fake_embedding(text: str, dimension: int) -> list[float]:
    """The vector the fake server returns for ``text``: deterministic, unit length."""
    needed = dimension * 4
    raw = hashlib.shake_256(text.encode("utf-8")).digest(needed)
    ints = struct.unpack(f"<{dimension}I", raw)
    values = [(i / 0xFFFFFFFF) * 2.0 - 1.0 for i in ints]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased (HTTP header names are case-insensitive)
    body: Any  # the parsed JSON body, or None

    @property
    def json(self) -> dict[str, Any]:
        assert isinstance(self.body, dict), f"request body is not a JSON object: {self.body!r}"
        return self.body


@dataclass
class FakeOpenAIServer:
    """Configuration, state and lifecycle of one fake server (mutable while it runs)."""

    embedding_dimension: int = DEFAULT_EMBEDDING_DIMENSION
    chat_content: str = DEFAULT_CHAT_CONTENT
    fail_status: int | None = None
    # Seconds each embeddings request takes before it is answered: a slow hosted model,
    # so a test can stop a client between two of its requests.
    embedding_delay_s: float = 0.0
    models: list[str] = field(default_factory=lambda: ["text-embedding-fake", "chat-fake"])
    requests: list[RecordedRequest] = field(default_factory=list)
    chat_queue: deque[QueuedChat] = field(default_factory=deque)
    # With nothing queued: the answer computed from the request's messages, if set (a test
    # that plays a model answering several prompts it cannot order in advance); a dict is
    # the whole assistant message (e.g. one with ``tool_calls``).
    chat_responder: Callable[[list[dict[str, Any]]], str | dict[str, Any]] | None = None

    _httpd: ThreadingHTTPServer | None = field(default=None, init=False, repr=False)
    _thread: threading.Thread | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    # --- lifecycle --------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        if self._httpd is not None:
            return self
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # --- accessors --------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("fake OpenAI server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def embedder_settings(self) -> dict[str, Any]:
        """The settings of a service whose embedder is this server (through litellm)."""
        return {
            "embedder": "litellm",
            "embedding_model": "openai/text-embedding-fake",
            "embedding_api_base": self.base_url,
            "embedding_api_key": "test-key",
        }

    def requests_to(self, path_suffix: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith(path_suffix)]

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/embeddings")

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/chat/completions")

    def reset(self) -> None:
        """Forget recorded requests and queued answers and clear any configured failure."""
        with self._lock:
            self.requests.clear()
            self.chat_queue.clear()
        self.fail_status = None

    def queue_chat(
        self, content: str = DEFAULT_CHAT_CONTENT, *, status: int = 200, **headers: str
    ) -> None:
        """Answer the next chat request with ``status`` and ``content`` (answers queue up in
        order); ``headers`` are sent with it, underscores as dashes (``retry_after="0"``)."""
        sent = {name.replace("_", "-"): value for name, value in headers.items()}
        with self._lock:
            self.chat_queue.append(QueuedChat(status, content, sent))

    def _next_chat(self) -> QueuedChat | None:
        with self._lock:
            return self.chat_queue.popleft() if self.chat_queue else None

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    # --- responses --------------------------------------------------------------------

    def embeddings_response(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        raw_input = body.get("input")
        if isinstance(raw_input, str):
            texts = [raw_input]
        elif isinstance(raw_input, list) and all(isinstance(t, str) for t in raw_input):
            texts = list(raw_input)
        else:
            return 400, _error("'input' must be a string or a list of strings", "invalid_request")
        if not texts:
            return 400, _error("'input' must not be empty", "invalid_request")
        dimension = body.get("dimensions") or self.embedding_dimension
        if not isinstance(dimension, int) or dimension <= 0:
            return 400, _error("'dimensions' must be a positive integer", "invalid_request")
        tokens = sum(len(t.split()) for t in texts)
        return 200, {
            "object": "list",
            "model": body.get("model", "text-embedding-fake"),
            "data": [
                {"object": "embedding", "index": i, "embedding": fake_embedding(t, dimension)}
                for i, t in enumerate(texts)
            ],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def chat_response(
        self, body: dict[str, Any], queued: QueuedChat | None = None
    ) -> tuple[int, dict[str, Any]]:
        if queued is not None and queued.status != 200:
            return queued.status, _error(queued.content, "queued")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return 400, _error("'messages' must be a non-empty list", "invalid_request")
        answer: str | dict[str, Any]
        if queued is not None:
            answer = queued.content
        elif self.chat_responder is not None:
            answer = self.chat_responder(messages)
        else:
            answer = self.chat_content
        message = answer if isinstance(answer, dict) else {"role": "assistant", "content": answer}
        content = str(message.get("content") or "")
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
        completion_tokens = len(content.split())
        return 200, {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "chat-fake"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output quiet

        def _send(
            self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
        ) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _headers(self) -> dict[str, str]:
            return {name.lower(): value for name, value in self.headers.items()}

        def _path(self) -> str:
            return self.path.split("?", 1)[0].rstrip("/")

        def do_GET(self) -> None:
            server._record(RecordedRequest("GET", self.path, self._headers(), None))
            if self._path() == "/v1/models":
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": [
                            {"id": m, "object": "model", "owned_by": "fake"} for m in server.models
                        ],
                    },
                )
            else:
                self._send(404, _error(f"no route for GET {self.path}", "not_found"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = None
            server._record(RecordedRequest("POST", self.path, self._headers(), body))
            if server.fail_status is not None:
                status = server.fail_status
                self._send(status, _error(f"fake server configured to fail ({status})", "server"))
                return
            if not isinstance(body, dict):
                self._send(400, _error("request body must be a JSON object", "invalid_request"))
                return
            path = self._path()
            if path == "/v1/embeddings":
                time.sleep(server.embedding_delay_s)
                self._send(*server.embeddings_response(body))
            elif path == "/v1/chat/completions":
                queued = server._next_chat()
                headers = queued.headers if queued is not None else None
                self._send(*server.chat_response(body, queued), headers)
            else:
                self._send(404, _error(f"no route for POST {self.path}", "not_found"))

    return Handler


def openai_server_fixture(
    *,
    dimension: int = DEFAULT_EMBEDDING_DIMENSION,
    chat_content: str = DEFAULT_CHAT_CONTENT,
    scope: Literal["session", "package", "module", "class", "function"] = "function",
) -> Callable[..., Iterator[FakeOpenAIServer]]:
    """Build a pytest fixture that yields a running :class:`FakeOpenAIServer`.

    Assign the result to a module (or conftest) attribute; the attribute's name is the
    fixture's name. With a wider ``scope`` the server is shared: call ``server.reset()``
    in tests that inspect ``requests`` or set ``fail_status``.
    """

    @pytest.fixture(scope=scope)
    def _fixture() -> Iterator[FakeOpenAIServer]:
        with FakeOpenAIServer(embedding_dimension=dimension, chat_content=chat_content) as srv:
            yield srv

    return _fixture
