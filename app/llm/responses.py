"""Reading what litellm answers: the JSON object in a model's text, its usage and cost,
and whether a failed call is worth another try (and after how long)."""

from __future__ import annotations

import email.utils
import time
from typing import Any, TypeVar

from pydantic import BaseModel

from thoughtgraph.domain.judgement import LLMUsage

R = TypeVar("R", bound=BaseModel)
# Worth another try: timeouts, rate limits, overload and the provider's own failures.
RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
RETRYABLE_ERRORS = (
    "Timeout",
    "APIConnectionError",
    "RateLimitError",
    "InternalServerError",
    "ServiceUnavailableError",
    "BadGatewayError",
)


def parse_answer(model: type[R], content: str, context: dict[str, Any] | None = None) -> R:
    """Validate a model's answer; a ```json fence or prose around the object is tolerated.
    Raises ValueError (pydantic's ValidationError is one) when it does not fit. ``context``
    goes to the model's validators (domain/writing.py's recorder)."""
    text = content.strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError(f"no JSON object in the answer: {shorten(text)!r}")
    return model.model_validate_json(text[start : end + 1], context=context)


def is_retryable(exc: BaseException) -> bool:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in RETRYABLE_STATUS
    if isinstance(exc, TimeoutError | ConnectionError):
        return True
    return any(cls.__name__ in RETRYABLE_ERRORS for cls in type(exc).__mro__)


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the provider asked us to wait (retry-after-ms or Retry-After), if it did."""
    headers: dict[str, str] = {}
    response = getattr(exc, "response", None)
    # litellm keeps the provider's headers here; its own exc.response has none.
    for source in (
        getattr(response, "headers", None),
        getattr(exc, "headers", None),
        getattr(exc, "litellm_response_headers", None),
    ):
        items = getattr(source, "items", None)  # a dict or httpx.Headers
        if callable(items):
            headers.update({str(k).lower(): str(v) for k, v in items()})
    if "retry-after-ms" in headers:
        try:
            return float(headers["retry-after-ms"]) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:  # the other form: an HTTP date
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def usage_of(response: object) -> LLMUsage:
    usage = getattr(response, "usage", None)
    prompt_tokens = getattr(usage, "prompt_tokens", 0) or 0
    completion_tokens = getattr(usage, "completion_tokens", 0) or 0
    return LLMUsage(
        calls=1,
        prompt_tokens=int(prompt_tokens),
        completion_tokens=int(completion_tokens),
        cost_usd=cost_of(response),
    )


def cost_of(response: object) -> float:
    """litellm's price for the call; 0 for models it has no price for (local, fakes)."""
    hidden = getattr(response, "_hidden_params", None)
    cost = hidden.get("response_cost") if isinstance(hidden, dict) else None
    if cost is None:
        import litellm

        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:
            cost = 0.0
    return float(cost) if isinstance(cost, int | float) else 0.0


def content_of(response: object) -> str:
    choices = getattr(response, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    content = getattr(message, "content", None)
    return content if isinstance(content, str) else ""


def status_fields(exc: BaseException) -> dict[str, int]:
    status = getattr(exc, "status_code", None)
    return {"status_code": status} if isinstance(status, int) else {}


def shorten(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
