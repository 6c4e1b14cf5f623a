"""The scheduled expiry of consent requests nobody decided in time."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtgraph.features.services import JobRuntime


class ExpiryResult(BaseModel):
    namespace: str
    expired: int


async def expire_requests(runtime: JobRuntime, namespace: str) -> ExpiryResult:
    expired = await runtime.services.consent.expire_due(namespace)
    return ExpiryResult(namespace=namespace, expired=expired)
