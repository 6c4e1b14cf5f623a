"""Recall: ask a question, get an answer from memory (reasoned with an LLM configured)."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.search.recall_types import RecallAnswer
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.features.search.recall import DEFAULT_K


async def resolve_recall(
    info: Info,
    question: str,
    namespace: str = DEFAULT_NAMESPACE,
    k: int | None = DEFAULT_K,
    current_only: bool | None = False,
    agent: str | None = None,
    categories: list[str] | None = None,
    resolve_dates: bool | None = None,
) -> RecallAnswer:
    found = await info.context.services.recall.recall(
        namespace,
        question,
        k=k,
        current_only=current_only,
        caller=info.context.principal,
        agent=agent,
        categories=categories,
        resolve_dates=resolve_dates,
    )
    return RecallAnswer.from_domain(found)


@strawberry.type
class RecallQuery:
    recall = strawberry.field(
        resolver=resolve_recall,
        description=(
            "Answers a question from the k (1 to 25) closest thoughts. For when / what date /"
            " how long ago questions (or resolveDates: true) the hits' relative dates are"
            " resolved against when each was written. With a language model configured the"
            " answer is reasoned, otherwise the best hit as written. `agent` names the"
            " allowlist to read under when the API key names none; `categories` narrows it"
            " (CATEGORY_NOT_ALLOWED outside it)."
        ),
    )
