"""Runs the real ASGI app under uvicorn in a background thread of this process.

The benchmark then uses the app's own services (on the app's event loop) for loading and
in-process measurements, and HTTP for the GraphQL ones: one process, one open data dir.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import httpx
import uvicorn
from starlette.applications import Starlette

from thoughtgraph.features.services import Services

T = TypeVar("T")


class BenchSetupError(RuntimeError):
    """The benchmark could not set up what it measures."""


class ServiceThread:
    """uvicorn serving ``app`` on a free 127.0.0.1 port, in a daemon thread with its own loop."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        # proto must be IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted connections only
        # then, and without it Nagle + delayed ACK add ~40 ms to every response.
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port: int = self._sock.getsockname()[1]
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=self.port,
            log_config=None,  # keep the CLI's logging setup
            access_log=False,  # a log line per request would be timed too
            lifespan="on",
        )
        self._server = uvicorn.Server(config)
        # The loop `thoughtgraph serve` would get (uvloop when installed), for the same timings.
        loop_factory = config.get_loop_factory()
        self._loop = loop_factory() if loop_factory is not None else asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="bench-service", daemon=True)
        self._error: BaseException | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._server.serve(sockets=[self._sock]))
        except BaseException as exc:  # reported to the main thread by start()/stop()
            self._error = exc
        finally:
            self._finish_loop()

    def _finish_loop(self) -> None:
        """Cancel what libraries left running on the loop (as asyncio.run does), then close."""
        pending = [task for task in asyncio.all_tasks(self._loop) if not task.done()]
        for task in pending:
            task.cancel()
        with contextlib.suppress(Exception):
            self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        self._loop.close()

    def start(self, timeout_s: float = 120.0) -> None:
        """Start serving and wait until ``/readyz`` answers 200."""
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        with httpx.Client(base_url=self.base_url, timeout=5.0) as client:
            while time.monotonic() < deadline:
                if not self._thread.is_alive():
                    detail = f": {self._error!r}" if self._error else "; see the log above"
                    raise BenchSetupError(f"the service did not start{detail}")
                if self._server.started:
                    with contextlib.suppress(httpx.HTTPError):
                        if client.get("/readyz").status_code == 200:
                            return
                time.sleep(0.05)
        raise BenchSetupError(f"the service was not healthy within {timeout_s:.0f} s")

    @property
    def services(self) -> Services:
        services: Services | None = getattr(self.app.state, "services", None)
        if services is None:
            raise BenchSetupError("the service has no services (not started, or stopped)")
        return services

    def call(self, coro: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
        """Run a coroutine on the app's event loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout_s)

    def stop(self, timeout_s: float = 60.0) -> None:
        """Shut the server down (the lifespan closes the store and stops the engine)."""
        if self._thread.is_alive():
            self._server.should_exit = True
            self._thread.join(timeout_s)
        with contextlib.suppress(OSError):
            self._sock.close()
        if self._thread.is_alive():
            raise BenchSetupError(f"the service did not stop within {timeout_s:.0f} s")
