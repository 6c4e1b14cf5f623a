"""What a store reports each statement to. Light on purpose: the store imports it."""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager
from typing import Protocol


class StatementObserver(Protocol):
    def statement(self, name: str, *, write: bool) -> AbstractContextManager[object]: ...


class Unobserved:
    """The store's observer until a runtime gives it one: measures nothing."""

    _none: AbstractContextManager[None] = contextlib.nullcontext()

    def statement(self, name: str, *, write: bool) -> AbstractContextManager[object]:
        del name, write
        return self._none


UNOBSERVED = Unobserved()
