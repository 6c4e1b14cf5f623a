"""Insights about people (seed 001 §3): a background job, never the write path, reads what
the memory recently recorded about each person and has the model write 1 to 3 short
third-person insights (kind ``insight``, category ``relationship_dynamic``, importance 2),
which retrieval ranks low (``insight_rank_factor``).

A person is a user thoughts are about (``about``) or who owns private thoughts. A person
is due when they had activity (current thoughts other than insights) in the job's window
(a day, or the job's period when longer) that is newer than their last insight; a person
whose last insight was written less than a day ago (by the service clock) is skipped.
For each due person the model reads their 5 newest current thoughts, up to 3 facts
learned since their last insight and a recent snippet (their newest own episode since
then, else their newest thoughts' text), 1,000 characters at most.

Each insight is written through ThoughtService (so the change log records it), private to
the person and about them, with an id made of the namespace, the person, the day and its
place in the answer: a retried task writes nothing twice. One person's bad answer never
fails the job: it is counted (rejected, failed) and the job goes on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import structlog
from pydantic import BaseModel

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.judgement import UsageMeter
from thoughtgraph.domain.knowledge import stable_thought_id
from thoughtgraph.domain.models import Thought, ThoughtKind
from thoughtgraph.domain.ops import OpsNode
from thoughtgraph.domain.scopes import Scope
from thoughtgraph.domain.units import DAY_MS
from thoughtgraph.features.access import Action, Principal, check_access
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.thoughts.service import ThoughtInput, ThoughtService
from thoughtgraph.llm.client import LLMAnswerInvalid, LLMBudgetExhausted, LLMClient, LLMError
from thoughtgraph.llm.prompts import insights as prompt
from thoughtgraph.ports.clock import Clock
from thoughtgraph.ports.jobs import JobQueue
from thoughtgraph.settings import Settings

log = structlog.get_logger(__name__)

RECENT_MS = DAY_MS  # a person with an insight written less than this ago is skipped
MAX_PEOPLE = 500  # people one run looks at, most recently active first
PEOPLE_PER_BATCH = 20  # people whose inputs are read together
CATEGORY = "relationship_dynamic"
IMPORTANCE = 2
WRITER = Actor.maintenance("insights")


class PersonStatus(StrEnum):
    WRITTEN = "written"
    SKIPPED_RECENT = "skipped: recent insight"  # one was written in the last 24 h
    REJECTED = "rejected"  # the answer stayed invalid after the repair round
    FAILED = "failed"  # the model did not answer (after the client's retries)
    SKIPPED_BUDGET = "skipped: budget"  # the run's model calls were used up


class PersonInsights(BaseModel):
    person: str
    status: PersonStatus
    thought_ids: list[str] = []
    error: str | None = None  # the error code when rejected or failed


@dataclass(frozen=True)
class Inputs:
    """What the model reads about one person."""

    person: str
    activity: list[Thought]  # newest first, at most MAX_ACTIVITY
    facts: list[Thought]  # learned since the last insight, newest first, at most MAX_FACTS
    snippet: str  # at most MAX_SNIPPET_CHARS


def _for_prompt(thoughts: Sequence[Thought]) -> list[prompt.ThoughtForInsight]:
    return [
        prompt.ThoughtForInsight(kind=t.kind.value, text=t.content, at_ms=t.created_at_ms)
        for t in thoughts
    ]


class InsightService:
    def __init__(
        self,
        repos: Repositories,
        thoughts: ThoughtService,
        llm: LLMClient | None,
        queue: JobQueue,
        settings: Settings,
        clock: Clock,
    ) -> None:
        self._repos = repos
        self._thoughts = thoughts
        self._llm = llm
        self._queue = queue
        self._settings = settings
        self._clock = clock

    @property
    def offline(self) -> bool:
        """No model configured: the job writes nothing."""
        return self._llm is None

    async def request(self, namespace: str, *, caller: Principal | None = None) -> bool:
        """Queue the insights job for the namespace: True once queued, False where no
        worker takes jobs (nothing runs)."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        return await self._queue.enqueue_insights(namespace)

    async def write_due(self, namespace: str, usage: UsageMeter) -> list[PersonInsights]:
        """Insights for every due person (see the module's docstring), and what became of
        each person looked at; nothing without a model."""
        if self._llm is None:
            return []
        now = self._clock.now_ms()
        window = max(DAY_MS, int(self._settings.insights_every_s * 1000))
        repo = self._repos.insights
        active = await repo.people(namespace, since_ms=now - window, limit=MAX_PEOPLE)
        last = await repo.last_written(namespace, list(active))
        outcomes: list[PersonInsights] = []
        due: dict[str, int] = {}  # person -> their last insight (0: none): what is new
        for person, last_activity in active.items():
            written = last.get(person)
            if written is not None and written > now - RECENT_MS:
                outcomes.append(PersonInsights(person=person, status=PersonStatus.SKIPPED_RECENT))
            elif written is None or last_activity > written:
                due[person] = written or 0
        people = list(due)
        for start in range(0, len(people), PEOPLE_PER_BATCH):
            batch = {p: due[p] for p in people[start : start + PEOPLE_PER_BATCH]}
            if usage.exhausted:
                outcomes.extend(_skipped_for_budget(batch))
                continue
            for inputs in await self._inputs(namespace, batch):
                if usage.exhausted:
                    outcomes.extend(_skipped_for_budget([inputs.person]))
                    continue
                outcomes.append(await self._write_for(namespace, inputs, usage, now))
        return outcomes

    async def _inputs(self, namespace: str, since: dict[str, int]) -> list[Inputs]:
        repo = self._repos.insights
        activity = await repo.recent(
            namespace, dict.fromkeys(since, 0), kind=None, limit=prompt.MAX_ACTIVITY
        )
        facts = await repo.recent(namespace, since, kind=ThoughtKind.FACT, limit=prompt.MAX_FACTS)
        talks = await repo.conversations(namespace, since)
        found: list[Inputs] = []
        for person in since:
            newest = activity.get(person, [])
            # Else their newest thoughts, oldest first, as a conversation would read.
            text = talks.get(person) or " ".join(t.content for t in reversed(newest))
            found.append(Inputs(person, newest, facts.get(person, []), prompt.snippet_of(text)))
        return found

    async def _write_for(
        self, namespace: str, inputs: Inputs, usage: UsageMeter, now_ms: int
    ) -> PersonInsights:
        assert self._llm is not None
        person = inputs.person
        try:
            answer = await self._llm.complete(
                prompt.PROMPT,
                usage,
                person,
                _for_prompt(inputs.activity),
                _for_prompt(inputs.facts),
                inputs.snippet,
            )
        except LLMBudgetExhausted:
            return PersonInsights(person=person, status=PersonStatus.SKIPPED_BUDGET)
        except LLMAnswerInvalid as exc:
            log.warning("insights.rejected", namespace=namespace, person=person, error=str(exc))
            return PersonInsights(person=person, status=PersonStatus.REJECTED, error=exc.code)
        except LLMError as exc:
            log.warning("insights.failed", namespace=namespace, person=person, error=str(exc))
            return PersonInsights(person=person, status=PersonStatus.FAILED, error=exc.code)
        day = str(now_ms // DAY_MS)
        ids: list[str] = []
        try:
            for i, insight in enumerate(answer.insights):
                data = ThoughtInput(
                    content=insight.summary,
                    agent_id=WRITER.id,
                    agent_name=WRITER.name,
                    namespace=namespace,
                    tags=insight.tags,
                    kind=ThoughtKind.INSIGHT,
                    importance=IMPORTANCE,
                    pinned=False,
                    category=CATEGORY,
                    scope=Scope.PRIVATE,  # an insight about a person is theirs
                    owner_id=person,
                    about=person,
                )
                thought_id = stable_thought_id("insight", namespace, person, day, str(i))
                written = await self._thoughts.write_original(
                    data, thought_id=thought_id, node=OpsNode.WORKER
                )
                ids.append(written.thought.id)
        except InvalidInputError as exc:  # a text the model wrote that no thought may hold
            log.warning("insights.rejected", namespace=namespace, person=person, error=str(exc))
            return PersonInsights(
                person=person, status=PersonStatus.REJECTED, thought_ids=ids, error=exc.code
            )
        log.info("insights.written", namespace=namespace, person=person, insights=len(ids))
        return PersonInsights(person=person, status=PersonStatus.WRITTEN, thought_ids=ids)


def _skipped_for_budget(people: Iterable[str]) -> list[PersonInsights]:
    return [PersonInsights(person=p, status=PersonStatus.SKIPPED_BUDGET) for p in people]
