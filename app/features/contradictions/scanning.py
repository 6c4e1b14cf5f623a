"""The contradiction scanner and link discovery: each thought against its most
similar current thoughts, pairs judged once per fortnight, contradictions recorded.

Precision first: only highly similar pairs reach the judge, a pair is judged once
(fingerprint) until rejudge_after_days, and a pair decided by a person is never judged
again. A lineage pair (a refinement and its source) is not a contradiction: refining is
how an agent says "this changed". Only claims are judged: a question, a greeting, thanks
or an opinion states nothing that a later thought could contradict or outdate
(:func:`thoughtgraph.domain.language.claims.is_claim`), so a pair with one is never
asked of the judge, recorded or superseded; nor is a pair of two authors one of whom
speaks only of themselves
(:func:`~thoughtgraph.domain.language.different_things.about_the_speaker`).
The judge reads the whole of each text: measured on the dev conversations, giving it the
claims alone made short texts more alike and found more false changes, not fewer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.judgement import PairToJudge, UsageMeter, Verdict
from thoughtgraph.domain.knowledge import RelatedThought, pair_fingerprint
from thoughtgraph.domain.language.claims import is_claim
from thoughtgraph.domain.language.different_things import about_the_speaker
from thoughtgraph.domain.models import ScoredThought, Thought, TimeView
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.domain.units import DAY_MS
from thoughtgraph.features.consolidation.neighbour_snapshot import NeighbourSource, VectorSnapshot
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.ports.clock import Clock
from thoughtgraph.ports.services import PairJudge
from thoughtgraph.settings import Settings


@dataclass
class ScanOutcome:
    neighbours: dict[str, list[ScoredThought]] = field(default_factory=dict)
    verdicts: dict[str, tuple[PairToJudge, Verdict]] = field(default_factory=dict)
    contradictions: list[tuple[PairToJudge, Verdict]] = field(default_factory=list)
    recorded: int = 0  # contradictions written (0 in a dry run)
    links: int = 0  # RELATED_TO edges created (0 in a dry run)
    would_link: int = 0  # links a real scan would add (dry runs report it)


def _is_lineage_pair(a: Thought, b: Thought) -> bool:
    return a.id in b.source_ids or b.id in a.source_ids


def _about_two_people(a: Thought, b: Thought) -> bool:
    """Two authors, one of them saying only something of themselves ("I moved to Leeds"):
    the other's text cannot update it, since nothing ties that "I" to anyone the other
    names; a judge matching "I" with "I" would compare two people."""
    return a.agent_id != b.agent_id and (
        about_the_speaker(a.content) or about_the_speaker(b.content)
    )


class ContradictionScanner:
    def __init__(
        self, repos: Repositories, judge: PairJudge, settings: Settings, clock: Clock
    ) -> None:
        self._repos = repos
        self._judge = judge
        self._settings = settings
        self._clock = clock
        self._nearest = repos.neighbours

    async def snapshot(
        self, namespace: str, *, candidates: int, current: int
    ) -> VectorSnapshot | None:
        """The namespace's vectors in memory, for a run over ``candidates`` of its
        ``current`` thoughts; None when the engine answers better (see
        ``VectorSnapshot.worth_loading``)."""
        most = self._settings.consolidation_memory_neighbours_max
        if not VectorSnapshot.worth_loading(candidates, current, max_thoughts=most):
            return None
        return await VectorSnapshot.load(self._nearest, namespace, max_thoughts=most)

    async def neighbours(
        self,
        namespace: str,
        subjects: Sequence[tuple[Thought, Sequence[float]]],
        source: NeighbourSource | None = None,
    ) -> dict[str, list[ScoredThought]]:
        """Each subject's most similar current thoughts (itself left out), all subjects
        at once: from ``source`` (a run's snapshot) or in one engine statement. Only
        thoughts of the subject's own partition (scope and owner) count, filtered before
        the k nearest are cut (so another partition's thoughts never crowd them out): what
        maintenance derives from a pair (a contradiction, a link, a merge, a supersession)
        never crosses from one user's private memory into another's, or into shared
        memory."""
        s = self._settings
        k = max(s.contradiction_candidates, s.related_top_k) + 1
        floor = min(s.contradiction_min_similarity, s.related_min_strength)
        view = TimeView(now_ms=self._clock.now_ms(), current_only=True, viewer=Viewer.everyone())
        return await (source or self._nearest).nearest(
            namespace,
            [(t.id, e) for t, e in subjects],
            k,
            floor,
            view,
            partitions={t.id: t.partition for t, _ in subjects},
        )

    async def scan(
        self,
        namespace: str,
        subjects: Sequence[tuple[Thought, Sequence[float]]],
        usage: UsageMeter,
        *,
        dry_run: bool = False,
        link: bool = True,
        source: NeighbourSource | None = None,
        judged_in_run: set[str] | None = None,
    ) -> ScanOutcome:
        """``source``: where neighbours come from (a run's snapshot; default the engine).
        ``judged_in_run``: pair ids a run judged on earlier pages, skipped without asking
        the store (and this scan's pairs are added to it)."""
        outcome = ScanOutcome(neighbours=await self.neighbours(namespace, subjects, source))
        pairs = self._candidate_pairs(namespace, subjects, outcome.neighbours)
        if judged_in_run is not None:
            pairs = {pid: pair for pid, pair in pairs.items() if pid not in judged_in_run}
            judged_in_run.update(pairs)
        now = self._clock.now_ms()
        since = now - self._settings.rejudge_after_days * DAY_MS
        judged = await self._repos.contradictions.judged_since(namespace, list(pairs), since)
        fresh = [pair for pid, pair in pairs.items() if pid not in judged]
        verdicts = await self._judge.judge(fresh, usage) if fresh else []
        for pair, verdict in zip(fresh, verdicts, strict=True):
            outcome.verdicts[pair.pair_id] = (pair, verdict)
            if verdict.contradicts:
                outcome.contradictions.append((pair, verdict))
        neighbours = self._links(outcome.neighbours)
        if dry_run:
            linked = await self._repos.related.existing(namespace, list(neighbours))
            outcome.would_link = sum(
                1
                for tid, found in neighbours.items()
                for n in found
                if n.thought_id not in linked.get(tid, set())
            )
            return outcome
        for pair, verdict in outcome.contradictions:
            if await self._repos.contradictions.record(
                namespace, pair.pair_id, pair.older_id, pair.newer_id, verdict, at_ms=now
            ):
                outcome.recorded += 1
        await self._repos.contradictions.remember_judged(
            namespace, [(p.pair_id, v.relation.value) for p, v in outcome.verdicts.values()], now
        )
        if link:
            outcome.links = await self._repos.related.link(
                namespace, neighbours, actor=Actor.maintenance("link-discovery"), at_ms=now
            )
        return outcome

    def _candidate_pairs(
        self,
        namespace: str,
        subjects: Sequence[tuple[Thought, Sequence[float]]],
        neighbours: dict[str, list[ScoredThought]],
    ) -> dict[str, PairToJudge]:
        s = self._settings
        pairs: dict[str, PairToJudge] = {}
        for thought, _ in subjects:
            if not is_claim(thought.content):
                continue
            near = neighbours.get(thought.id, [])[: s.contradiction_candidates]
            for hit in near:
                other = hit.thought
                if hit.similarity < s.contradiction_min_similarity:
                    continue
                if _is_lineage_pair(thought, other) or not is_claim(other.content):
                    continue
                if _about_two_people(thought, other):
                    continue
                pid = pair_fingerprint(namespace, thought.id, other.id)
                if pid in pairs:
                    continue
                older, newer = sorted(
                    (thought, other), key=lambda t: (t.created_at_ms, t.revision, t.id)
                )
                pairs[pid] = PairToJudge(
                    pair_id=pid,
                    older_id=older.id,
                    older_text=older.content,
                    older_at_ms=older.created_at_ms,
                    newer_id=newer.id,
                    newer_text=newer.content,
                    newer_at_ms=newer.created_at_ms,
                    similarity=hit.similarity,
                )
        return pairs

    def _links(self, neighbours: dict[str, list[ScoredThought]]) -> dict[str, list[RelatedThought]]:
        s = self._settings
        seen: set[frozenset[str]] = set()
        links: dict[str, list[RelatedThought]] = {}
        for tid, hits in neighbours.items():
            chosen = []
            for hit in hits[: s.related_top_k]:
                pair = frozenset((tid, hit.thought.id))
                if hit.similarity < s.related_min_strength or pair in seen:
                    continue
                seen.add(pair)
                chosen.append(RelatedThought(thought_id=hit.thought.id, strength=hit.similarity))
            if chosen:
                links[tid] = chosen
        return links
