"""One error tree for the whole service.

Every error a caller can cause or should know about derives from ``ThoughtgraphError``
and carries a stable ``code``; the GraphQL layer exposes it as ``extensions.code``
(graphql-core copies an original error's ``extensions`` onto the GraphQL error).
Anything else is unexpected and gets masked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar


class ThoughtgraphError(Exception):
    code: ClassVar[str] = "INTERNAL_ERROR"
    # What a client is told instead of ``message`` (and with no details), where the message
    # carries what only the operator should see: an engine's or a model's own words.
    public_message: ClassVar[str | None] = None

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    @property
    def extensions(self) -> dict[str, Any]:
        return {"code": self.code, **self.details}


# --- caller errors: bad input, nothing written -------------------------------------------


class InvalidInputError(ThoughtgraphError):
    code = "VALIDATION_ERROR"


class MutualExclusionError(InvalidInputError):
    code = "MUTUAL_EXCLUSION"


class MinConsolidationError(InvalidInputError):
    code = "MIN_CONSOLIDATION"


class CategoryNotAllowedError(ThoughtgraphError):
    """The agent's allowlist (``TG_ALLOWLIST_FILE``) does not let it read a category asked
    for, or the agent has no allowlist at all."""

    code = "CATEGORY_NOT_ALLOWED"


class AgentMismatchError(ThoughtgraphError):
    """A request names an agent other than the one its API key is bound to."""

    code = "AGENT_MISMATCH"


class ForbiddenError(ThoughtgraphError):
    """The caller's key does not allow this action on this namespace."""

    code = "FORBIDDEN"


class ThoughtNotFoundError(ThoughtgraphError):
    code = "THOUGHT_NOT_FOUND"

    def __init__(self, missing_ids: Sequence[str]) -> None:
        ids = list(missing_ids)
        super().__init__(f"Thought(s) not found: {', '.join(ids)}", ids=ids)
        self.missing_ids = ids


class NotFoundError(ThoughtgraphError):
    """A topic, contradiction, episode or consolidation run that the namespace lacks."""

    code = "NOT_FOUND"

    def __init__(self, kind: str, subject_id: str) -> None:
        super().__init__(f"No {kind} with id {subject_id}", kind=kind, id=subject_id)


class InvalidStateError(ThoughtgraphError):
    """The subject exists but cannot take this change now (resolving a resolved
    contradiction, restoring a purged thought, undoing what was not merged)."""

    code = "INVALID_STATE"


class ConsentRequiredError(ThoughtgraphError):
    """The change would alter a field about a person, which only that person's approval
    (or, for a benign field, corroboration) may do (thoughtgraph.domain.consent)."""

    code = "CONSENT_REQUIRED"


class VectorSpaceChangedError(ThoughtgraphError):
    """A long read (an export) outlived the vector space it started in: a re-embed switched
    the store meanwhile, so what it read would mix two embedders' vectors. Run it again."""

    code = "VECTOR_SPACE_CHANGED"


# --- infrastructure errors ----------------------------------------------------------------


class StoreError(ThoughtgraphError):
    code = "STORE_UNAVAILABLE"
    public_message = "The graph store could not answer; the request wrote nothing. Try again."


class StoreTimeoutError(StoreError):
    code = "STORE_TIMEOUT"
    public_message = (
        "The query ran longer than the service allows and was stopped; nothing was written. "
        "Ask for less."
    )


class StoreFullError(StoreError):
    code = "STORE_FULL"
    public_message = (
        "The store's disk is full: writes are refused until space is freed (reads still "
        "work); nothing was written."
    )


class EngineStartError(StoreError):
    code = "ENGINE_START_FAILED"


class DataDirLockedError(StoreError):
    code = "DATA_DIR_LOCKED"


class SchemaMismatchError(StoreError):
    code = "SCHEMA_MISMATCH"


class EngineUnavailableError(StoreError):
    code = "ENGINE_UNAVAILABLE"


class EmbeddingError(ThoughtgraphError):
    code = "EMBEDDING_FAILED"
    public_message = "The embedding model could not embed the text; nothing was written."


class VectorSearchUnavailableError(ThoughtgraphError):
    """A search by meaning alone asked of a service running without an embedder."""

    code = "VECTOR_SEARCH_UNAVAILABLE"

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} needs an embedder; this service runs without one (TG_EMBEDDER=none, "
            "full-text search only)"
        )


class ConfigurationError(ThoughtgraphError):
    code = "CONFIGURATION_ERROR"
