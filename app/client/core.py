"""The client's small core: one GraphQL request over HTTP, its errors as one typed exception.

Everything typed (app/client/operations) goes through ``execute``: a document and its
variables in, the ``data`` object out, or ``ThoughtgraphAPIError`` carrying the service's
``extensions.code``. It knows nothing of the service's modules: only its HTTP API.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from enum import Enum
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter

__all__ = [
    "DEFAULT_URL",
    "AsyncRunner",
    "Operation",
    "SyncRunner",
    "ThoughtgraphAPIError",
    "ThoughtgraphUnavailable",
]

T = TypeVar("T")
DEFAULT_URL = "http://127.0.0.1:8000"


class ThoughtgraphAPIError(Exception):
    """The service refused a request. ``code`` is the first error's ``extensions.code``
    (VALIDATION_ERROR, THOUGHT_NOT_FOUND, FORBIDDEN, ...), or ``HTTP_<status>`` when the
    answer was no GraphQL at all; ``errors`` holds every GraphQL error as sent."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        errors: list[dict[str, Any]] | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.message = message
        self.code = code
        self.errors = errors or []
        self.status = status

    @property
    def codes(self) -> list[str]:
        """Every error's code, in order."""
        return [str((e.get("extensions") or {}).get("code")) for e in self.errors]


class ThoughtgraphUnavailable(ThoughtgraphAPIError):
    """The service could not be reached (connection refused, timed out): code UNAVAILABLE."""


class Operation(Generic[T]):
    """One root field's document and the type its answer is read as."""

    def __init__(self, field: str, result: Any, document: str) -> None:
        self.field = field
        self.document = document
        self.namespaced = "$namespace:" in document
        self._result = result
        self._adapter: TypeAdapter[T] | None = None

    def parse(self, data: Mapping[str, Any]) -> T:
        if self._adapter is None:
            self._adapter = TypeAdapter(self._result)
        return self._adapter.validate_python(data[self.field])


def _encode(value: Any, namespace: str | None) -> Any:
    """A variable as JSON; an input left without a namespace gets the client's."""
    if isinstance(value, BaseModel):
        if namespace and "namespace" in type(value).model_fields and not value.namespace:  # type: ignore[attr-defined]
            value = value.model_copy(update={"namespace": namespace})
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [_encode(item, namespace) for item in value]
    return value


class _Core:
    """What both clients share: where the service is, how to authenticate, how to read an
    answer."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        namespace: str | None = None,
        timeout: float = 30.0,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/graphql"
        # Ops that take a namespace get this one when the call gives none (None: the
        # service's own default, "default").
        self.namespace = namespace
        self.timeout = timeout
        self.headers = {"content-type": "application/json", **(headers or {})}
        if api_key:
            self.headers["authorization"] = f"Bearer {api_key}"

    def _payload(
        self, document: str, variables: Mapping[str, Any] | None, namespaced: bool = False
    ) -> dict[str, Any]:
        sent = {
            name: _encode(value, self.namespace)
            for name, value in (variables or {}).items()
            if value is not None
        }
        if namespaced and self.namespace and "namespace" not in sent:
            sent["namespace"] = self.namespace
        return {"query": document, "variables": sent}

    @staticmethod
    def _data(response: httpx.Response) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or ("data" not in body and "errors" not in body):
            raise ThoughtgraphAPIError(
                response.text[:200] or response.reason_phrase,
                code=f"HTTP_{response.status_code}",
                status=response.status_code,
            )
        errors = body.get("errors") or []
        if errors:
            first = errors[0]
            code = (first.get("extensions") or {}).get("code") or "GRAPHQL_ERROR"
            raise ThoughtgraphAPIError(
                str(first.get("message")),
                code=str(code),
                errors=errors,
                status=response.status_code,
            )
        if response.status_code >= 400 or not isinstance(body.get("data"), dict):
            raise ThoughtgraphAPIError(
                "no data", code=f"HTTP_{response.status_code}", status=response.status_code
            )
        data: dict[str, Any] = body["data"]
        return data


def _unavailable(url: str, error: httpx.TransportError) -> ThoughtgraphUnavailable:
    return ThoughtgraphUnavailable(f"{url}: {error!r}", code="UNAVAILABLE")


class SyncRunner(_Core):
    """The blocking core: ``execute`` any document; the typed methods run through ``_run``."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        namespace: str | None = None,
        timeout: float = 30.0,
        headers: Mapping[str, str] | None = None,
        http: httpx.Client | None = None,
    ) -> None:
        super().__init__(
            base_url, api_key=api_key, namespace=namespace, timeout=timeout, headers=headers
        )
        self.http = http or httpx.Client(timeout=timeout)

    def execute(self, document: str, variables: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The ``data`` of one GraphQL request (ThoughtgraphAPIError on any error)."""
        return self._send(self._payload(document, variables))

    def _send(self, payload: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self.http.post(self.url, json=payload, headers=self.headers)
        except httpx.TransportError as error:
            raise _unavailable(self.url, error) from error
        return self._data(response)

    def _run(self, operation: Operation[T], variables: Mapping[str, Any]) -> T:
        payload = self._payload(operation.document, variables, operation.namespaced)
        return operation.parse(self._send(payload))

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AsyncRunner(_Core):
    """The asyncio core: the same as SyncRunner, awaited."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        namespace: str | None = None,
        timeout: float = 30.0,
        headers: Mapping[str, str] | None = None,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(
            base_url, api_key=api_key, namespace=namespace, timeout=timeout, headers=headers
        )
        self.http = http or httpx.AsyncClient(timeout=timeout)

    async def execute(
        self, document: str, variables: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """The ``data`` of one GraphQL request (ThoughtgraphAPIError on any error)."""
        return await self._send(self._payload(document, variables))

    async def _send(self, payload: dict[str, Any]) -> dict[str, Any]:
        try:
            response = await self.http.post(self.url, json=payload, headers=self.headers)
        except httpx.TransportError as error:
            raise _unavailable(self.url, error) from error
        return self._data(response)

    async def _run(self, operation: Operation[T], variables: Mapping[str, Any]) -> T:
        payload = self._payload(operation.document, variables, operation.namespaced)
        return operation.parse(await self._send(payload))

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
