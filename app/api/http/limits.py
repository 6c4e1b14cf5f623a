"""Request hygiene below the GraphQL layer.

* ``BodySizeLimit``: a cap on the request body, checked against Content-Length when the
  client sends one and counted as the body streams in when it does not, so an oversized
  body is refused before it is held in memory.
* ``CancelOnDisconnect``: a request whose client has gone away is cancelled, and with it
  the engine statement it was waiting on (the Neo4j driver resets the connection, which
  ends the server's transaction; FalkorDB's own statement timeout bounds the rest).
"""

from __future__ import annotations

import asyncio
import contextlib
import json

import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from thoughtgraph.api.http.errors import error_body

log = structlog.get_logger(__name__)


class _BodyTooLarge(Exception):
    pass


class BodySizeLimit:
    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise _BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _BodyTooLarge:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        message = f"The request body is larger than {self.max_bytes:,} bytes."
        body = json.dumps(error_body(message, "REQUEST_TOO_LARGE")).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class CancelOnDisconnect:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body_read = asyncio.Event()
        responded = False

        async def tracking_receive() -> Message:
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_read.set()
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal responded
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                responded = True
            await send(message)

        async def handle() -> None:
            await self.app(scope, tracking_receive, tracking_send)

        handler = asyncio.create_task(handle())

        async def watch() -> None:
            # Once the body is read, the server's next message is the disconnect (a client
            # gone, or the response complete): only the first kind cancels the handler.
            await body_read.wait()
            message = await receive()
            if message["type"] == "http.disconnect" and not responded and not handler.done():
                log.info("request.abandoned", path=scope.get("path"))
                handler.cancel()

        watcher = asyncio.create_task(watch())
        try:
            await handler
        except asyncio.CancelledError:
            if not handler.cancelled():
                raise
            # Cancelled for the client: there is nobody left to answer.
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
