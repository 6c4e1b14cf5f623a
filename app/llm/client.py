"""Ask an LLM (any model litellm reaches) a prompt and get back a validated pydantic answer."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, TypeVar

import structlog
from pydantic import BaseModel, ValidationError

from thoughtgraph.domain.errors import ThoughtgraphError
from thoughtgraph.domain.judgement import LLMUsage, UsageMeter
from thoughtgraph.domain.writing import Outcome, Style, recording
from thoughtgraph.llm.cache import CACHE_FILE_NAME, AnswerCache, SqliteAnswerCache, answer_key
from thoughtgraph.llm.embedders.litellm_embedder import prepare_litellm
from thoughtgraph.llm.prompts.base import ChatMessage, Prompt
from thoughtgraph.llm.responses import (
    content_of,
    is_retryable,
    parse_answer,
    retry_after_s,
    shorten,
    status_fields,
    usage_of,
)

if TYPE_CHECKING:
    from thoughtgraph.settings import Settings

log = structlog.get_logger(__name__)

P = ParamSpec("P")
R = TypeVar("R", bound=BaseModel)

DEFAULT_BASE_DELAY_S = 1.0
# The calls one answer may take: the answer, and one repair round when it is out of form.
CALLS_WITH_REPAIR = 2
DEFAULT_MAX_DELAY_S = 60.0
REPAIR_MESSAGE = (
    "That answer was not valid: {error}\n"
    "Answer again with the JSON object only, exactly in the form asked for."
)


class LLMCallObserver(Protocol):
    """Told of every provider call (app/observability: calls, tokens, cost per namespace).
    ``status``: ok, retry (it failed and is tried again) or error (given up)."""

    def llm_call(
        self,
        *,
        namespace: str | None,
        prompt: str,
        model: str,
        status: str,
        seconds: float,
        usage: LLMUsage | None,
    ) -> None: ...

    def writing_check(self, *, prompt: str, style: str, outcome: str, attempt: str) -> None:
        """One text of an answer checked against its writing style (domain/writing.py):
        ``outcome`` passed, trimmed or rejected; ``attempt`` first (the model's first
        answer) or repair (its answer after being shown the error)."""


class LLMError(ThoughtgraphError):
    code = "LLM_FAILED"
    public_message = "The language model could not answer."


class LLMBudgetExhausted(LLMError):
    code = "LLM_BUDGET_EXHAUSTED"
    public_message = "The run's budget of language model calls is used up."


class LLMAnswerInvalid(LLMError):
    code = "LLM_ANSWER_INVALID"
    public_message = "The language model's answer did not have the expected form."


class LLMClient:
    """One model, called through ``litellm.acompletion`` with JSON output.

    :meth:`complete` renders a :class:`Prompt`, answers from the cache when it can, else
    takes a call from the caller's :class:`UsageMeter` budget and asks the model. Rate
    limits (429) and transient failures are retried ``retries`` times with exponential
    backoff from ``base_delay_s`` (a provider's Retry-After wins when it sends one). An
    answer that is not valid JSON for the prompt's response model gets one repair round
    (the model is shown the validation error), which costs a second call. litellm's own
    retries are off: every retry happens here, where it is counted and logged.
    """

    def __init__(
        self,
        model: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        timeout_s: float = 30.0,
        retries: int = 4,
        api_base: str | None = None,
        api_key: str | None = None,
        cache: AnswerCache | None = None,
        base_delay_s: float = DEFAULT_BASE_DELAY_S,
        max_delay_s: float = DEFAULT_MAX_DELAY_S,
        repair: bool = True,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        observer: LLMCallObserver | None = None,
    ) -> None:
        self.model = model
        self.observer = observer
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.retries = max(0, retries)
        self.api_base = api_base
        self._api_key = api_key
        self.cache = cache
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s
        self.repair = repair
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"LLMClient(model={self.model!r}, api_base={self.api_base!r})"

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        cache: AnswerCache | None = None,
        observer: LLMCallObserver | None = None,
    ) -> LLMClient:
        if not settings.llm_model:
            raise ValueError("LLMClient needs settings.llm_model")
        secret = settings.llm_api_key
        return cls(
            settings.llm_model,
            temperature=settings.llm_temperature,
            max_tokens=settings.llm_max_tokens,
            timeout_s=settings.llm_timeout_s,
            retries=settings.llm_retries,
            api_base=settings.llm_api_base,
            api_key=(secret.get_secret_value() or None) if secret is not None else None,
            cache=cache,
            observer=observer,
        )

    async def complete(
        self, prompt: Prompt[P, R], usage: UsageMeter, /, *args: P.args, **kwargs: P.kwargs
    ) -> R:
        """The model's answer to ``prompt`` rendered with the given variables.

        Raises :class:`LLMBudgetExhausted` when ``usage`` has no call left (nothing is
        sent), :class:`LLMAnswerInvalid` when the answer stays invalid after the repair
        round, and :class:`LLMError` when the provider fails after the retries.
        """
        messages = prompt.render(*args, **kwargs)
        key = answer_key(self.model, prompt.name, prompt.version, messages)
        cached = await self._cached(prompt, key)
        if cached is not None:
            usage.record(LLMUsage(cached_answers=1))
            return cached
        content = await self._spend_and_call(prompt, messages, usage)
        try:
            answer = self._parse(prompt, content, attempt="first")
        except ValueError as exc:
            if not self.repair:
                raise self._invalid(prompt, exc) from exc
            log.warning("llm_answer_invalid", prompt=prompt.name, model=self.model, error=str(exc))
            retry = [
                *messages,
                {"role": "assistant", "content": content},
                {"role": "user", "content": REPAIR_MESSAGE.format(error=shorten(str(exc)))},
            ]
            content = await self._spend_and_call(prompt, retry, usage)
            try:
                answer = self._parse(prompt, content, attempt="repair")
            except ValueError as again:
                raise self._invalid(prompt, again) from again
        await self._store(prompt, key, answer)
        return answer

    def _parse(self, prompt: Prompt[P, R], content: str, *, attempt: str) -> R:
        """The answer validated; each text its writing rules check is told to the observer."""
        observer = self.observer
        if observer is None:
            return parse_answer(prompt.response_model, content)

        def record(style: Style, outcome: Outcome) -> None:
            observer.writing_check(
                prompt=prompt.name, style=style.value, outcome=outcome.value, attempt=attempt
            )

        return parse_answer(prompt.response_model, content, recording(record))

    # --- the cache: best effort, a broken cache never fails a call ----------------------

    async def _cached(self, prompt: Prompt[P, R], key: str) -> R | None:
        if self.cache is None:
            return None
        try:
            text = await self.cache.get(key)
        except Exception as exc:
            log.warning("llm_cache_unreadable", error=f"{type(exc).__name__}: {exc}")
            return None
        if text is None:
            return None
        try:
            return prompt.response_model.model_validate_json(text)
        except ValidationError:
            return None  # written for an older response model: ask again

    async def _store(self, prompt: Prompt[P, R], key: str, answer: R) -> None:
        if self.cache is None:
            return
        try:
            await self.cache.put(key, prompt.name, answer.model_dump_json())
        except Exception as exc:
            log.warning("llm_cache_unwritable", error=f"{type(exc).__name__}: {exc}")

    # --- the provider ------------------------------------------------------------------

    async def _spend_and_call(
        self, prompt: Prompt[P, R], messages: list[ChatMessage], usage: UsageMeter
    ) -> str:
        if not usage.try_spend():
            raise LLMBudgetExhausted(
                f"No LLM call left for {prompt.name} (budget {usage.max_calls} per run)",
                prompt=prompt.name,
                namespace=usage.namespace,
            )
        return await self._call(prompt, messages, usage)

    async def _call(
        self, prompt: Prompt[P, R], messages: list[ChatMessage], usage: UsageMeter
    ) -> str:
        prepare_litellm()
        import litellm

        request = self._request(messages, prompt)
        for attempt in range(self.retries + 1):
            started = time.monotonic()
            try:
                response = await litellm.acompletion(**request)
            except Exception as exc:
                final = attempt >= self.retries or not is_retryable(exc)
                self._observe(prompt, usage, "error" if final else "retry", started, None)
                if final:
                    raise LLMError(
                        f"{self.model} failed on {prompt.name} after {attempt + 1} attempt(s): "
                        f"{type(exc).__name__}: {shorten(str(exc))}",
                        prompt=prompt.name,
                        model=self.model,
                        **status_fields(exc),
                    ) from exc
                delay = self._delay(attempt, exc)
                log.warning(
                    "llm_retry",
                    prompt=prompt.name,
                    model=self.model,
                    attempt=attempt + 1,
                    delay_s=round(delay, 3),
                    error=f"{type(exc).__name__}: {shorten(str(exc))}",
                    **status_fields(exc),
                )
                await self._sleep(delay)
                continue
            spent = usage_of(response)
            usage.record(spent)
            self._observe(prompt, usage, "ok", started, spent)
            log.debug(
                "llm_call",
                prompt=prompt.name,
                model=self.model,
                seconds=round(time.monotonic() - started, 3),
            )
            return content_of(response)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _observe(
        self,
        prompt: Prompt[P, R],
        usage: UsageMeter,
        status: str,
        started: float,
        spent: LLMUsage | None,
    ) -> None:
        if self.observer is not None:
            self.observer.llm_call(
                namespace=usage.namespace,
                prompt=prompt.name,
                model=self.model,
                status=status,
                seconds=time.monotonic() - started,
                usage=spent,
            )

    def _request(self, messages: list[ChatMessage], prompt: Prompt[Any, Any]) -> dict[str, Any]:
        """The litellm call: the client's temperature and token limit, or the prompt's
        (its max_tokens only lowers the client's)."""
        temperature, max_tokens = self.temperature, self.max_tokens
        if prompt.temperature is not None:
            temperature = prompt.temperature
        if prompt.max_tokens is not None:
            max_tokens = min(max_tokens, prompt.max_tokens)
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "timeout": self.timeout_s,
            "response_format": {"type": "json_object"},
            # Providers that cannot take response_format get it dropped, not a 400.
            "drop_params": True,
            "num_retries": 0,
            "max_retries": 0,
        }
        if self.api_base:
            request["api_base"] = self.api_base
        if self._api_key:
            request["api_key"] = self._api_key
        return request

    def _delay(self, attempt: int, exc: BaseException) -> float:
        told = retry_after_s(exc)
        if told is not None:
            return min(max(0.0, told), self.max_delay_s)
        # Jitter, so processes that hit the same limit do not come back in step.
        backoff = self.base_delay_s * (2.0**attempt) * (1.0 + random.random() * 0.25)
        return min(backoff, self.max_delay_s)

    def _invalid(self, prompt: Prompt[P, R], exc: Exception) -> LLMAnswerInvalid:
        return LLMAnswerInvalid(
            f"{self.model} answered {prompt.name} with invalid JSON: {shorten(str(exc))}",
            prompt=prompt.name,
            model=self.model,
        )


def build_llm_client(
    settings: Settings,
    *,
    cache: AnswerCache | None = None,
    observer: LLMCallObserver | None = None,
) -> LLMClient | None:
    """The configured LLM, or None without ``llm_model`` (every feature then runs offline).

    The answer cache is ``<data_dir>/llm-cache.sqlite3`` (opened on first use) unless
    ``llm_cache`` is off or another ``cache`` is given.
    """
    if not settings.llm_model:
        return None
    if cache is None and settings.llm_cache:
        cache = SqliteAnswerCache(settings.data_dir / CACHE_FILE_NAME)
    return LLMClient.from_settings(settings, cache=cache, observer=observer)


__all__ = [
    "LLMAnswerInvalid",
    "LLMBudgetExhausted",
    "LLMClient",
    "LLMError",
    "build_llm_client",
    "is_retryable",
    "parse_answer",
    "retry_after_s",
]
