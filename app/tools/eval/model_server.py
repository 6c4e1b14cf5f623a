"""An OpenAI-compatible test model server for the evaluation: it answers the service's
prompts the way a perfect model would on the evaluation set (verdicts from the set's
labels; pairs it does not know are compatible), and answers every ``rate_limit_every``-th
request with HTTP 429 and a Retry-After, as providers do.

It measures the LLM path (prompts, batching, JSON validation, caching, retries, and what
the service does with right verdicts), not a model: its figures are an upper bound for
the judge, while the offline figures are the rules judge's own.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from thoughtgraph.tools.eval.updates import EvalPair

MODEL = "openai/eval-oracle"


class OracleModelServer:
    def __init__(self, pairs: Sequence[EvalPair], *, rate_limit_every: int = 7) -> None:
        self._labels = {(p.older.strip(), p.newer.strip()): p.kind for p in pairs}
        self._every = rate_limit_every
        self._lock = threading.Lock()
        self.requests = 0
        self.rate_limited = 0
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> OracleModelServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests += 1
            if self._every and self.requests % self._every == 0:
                self.rate_limited += 1
                return 429, {"error": {"message": "rate limited", "type": "rate_limit"}}
        messages = body.get("messages") or []
        system = str(messages[0].get("content", "")) if messages else ""
        user = str(messages[-1].get("content", "")) if messages else ""
        content = self._content(system, user)
        return 200, {
            "id": "oracle",
            "object": "chat.completion",
            "model": body.get("model", MODEL),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": len(system + user) // 4,
                "completion_tokens": len(content) // 4,
                "total_tokens": (len(system + user) + len(content)) // 4,
            },
        }

    def _content(self, system: str, user: str) -> str:
        if user.startswith("Pairs:"):
            pairs = json.loads(user.split("\n", 1)[1])
            verdicts = []
            for item in pairs:
                kind = self._labels.get(
                    (item["older"]["text"].strip(), item["newer"]["text"].strip())
                )
                relation = "update" if kind == "update" else "compatible"
                verdicts.append(
                    {
                        "pair_id": item["pair_id"],
                        "relation": relation,
                        "confidence": 0.9,
                        "explanation": f"labelled {kind or 'unknown'} in the evaluation set",
                    }
                )
            return json.dumps({"verdicts": verdicts})
        if user.startswith("Topic:") or user.startswith("Thoughts:"):
            thoughts = json.loads(user.split("Thoughts:\n", 1)[1])
            return json.dumps(
                {"summary": " ".join(t["text"] for t in thoughts[-3:]), "superseded_ids": []}
            )
        first = user.split("\n", 1)[-1].strip().split(". ")[0][:90]
        return json.dumps(
            {"summary": first or "-", "line": first or "-", "title": first[:40], "thoughts": []}
        )


def _handler(server: OracleModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            status, payload = server.answer(body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            if status == 429:
                self.send_header("retry-after", "0")
            self.end_headers()
            self.wfile.write(data)

    return Handler
