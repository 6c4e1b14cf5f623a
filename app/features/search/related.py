"""Related thoughts: a thought's RELATED_TO neighbours, which consolidation links."""

from __future__ import annotations

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import ThoughtNotFoundError
from thoughtgraph.domain.knowledge import RelatedThought
from thoughtgraph.domain.models import TimeView, now_ms
from thoughtgraph.domain.retrieval import DEFAULT_RELATED_FIRST
from thoughtgraph.features.access import Action, Principal, check_access, require_seen, scoped
from thoughtgraph.features.repositories import Repositories


class RelatedService:
    def __init__(self, repos: Repositories) -> None:
        self._repos = repos

    async def of(
        self,
        namespace: str,
        thought_id: str,
        limit: int | None = None,
        view: TimeView | None = None,
        *,
        caller: Principal | None = None,
    ) -> list[RelatedThought]:
        """Neighbours visible in the view, strongest first; THOUGHT_NOT_FOUND for an id the
        namespace lacks (an unlinked thought has none, which is not the same answer)."""
        check_access(caller, Action.READ, namespace)
        limit = DEFAULT_RELATED_FIRST if limit is None else limit
        check.require_namespace(namespace)
        tid = check.require_thought_id("id", thought_id)
        check.require_int_range("first", limit, 1, check.MAX_PAGE_SIZE)
        await require_seen(self._repos, namespace, tid, caller)
        related = await self._repos.related.of(
            namespace, tid, limit, scoped(view, caller, now_ms())
        )
        if not related and tid not in await self._repos.thoughts.get_many(namespace, [tid]):
            raise ThoughtNotFoundError([tid])
        return related
