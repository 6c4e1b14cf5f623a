"""The insights job: what ``thoughtgraph.write_insights`` runs for one namespace."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtgraph.domain.judgement import UsageMeter
from thoughtgraph.features.insights.service import PersonInsights
from thoughtgraph.features.services import JobRuntime

DONE = "done"
NO_MODEL = "skipped: no model"


class InsightsResult(BaseModel):
    namespace: str
    status: str  # done, or "skipped: no model" (nothing is read or written offline)
    written: int = 0  # insights written
    people: list[PersonInsights] = []  # each person looked at, and what became of them
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


async def write_insights(runtime: JobRuntime, namespace: str) -> InsightsResult:
    """Insights for the namespace's due people, within the run's budget of model calls
    (``llm_max_calls_per_run``); one person's bad answer is counted, never raised."""
    service = runtime.services.insights
    if service.offline:
        return InsightsResult(namespace=namespace, status=NO_MODEL)
    usage = UsageMeter(max_calls=runtime.settings.llm_max_calls_per_run, namespace=namespace)
    people = await service.write_due(namespace, usage)
    return InsightsResult(
        namespace=namespace,
        status=DONE,
        written=sum(len(p.thought_ids) for p in people),
        people=people,
        llm_calls=usage.usage.calls,
        prompt_tokens=usage.usage.prompt_tokens,
        completion_tokens=usage.usage.completion_tokens,
    )
