"""Every feature's repository over one executor: the one way into the store.

The container builds this once per process and hands it to the services, each of which
keeps the repositories it uses. A repository runs its feature's named statements
(``cypher/<feature>/``) and turns rows into domain values; nothing else runs statements.
"""

from __future__ import annotations

from dataclasses import dataclass

from thoughtgraph.features.changes.repository import ChangeRepository
from thoughtgraph.features.checkpoints.repository import CheckpointRepository
from thoughtgraph.features.consent.repository import ConsentRepository
from thoughtgraph.features.consolidation.proposals_repository import ProposalRepository
from thoughtgraph.features.consolidation.repository import MergeRepository
from thoughtgraph.features.consolidation.runs_repository import RunRepository
from thoughtgraph.features.contradictions.repository import ContradictionRepository
from thoughtgraph.features.contradictions.scan_cursor_repository import ScanCursorRepository
from thoughtgraph.features.contradictions.supersession_repository import SupersessionRepository
from thoughtgraph.features.episodes.repository import EpisodeRepository
from thoughtgraph.features.extraction.repository import ExtractionRepository
from thoughtgraph.features.insights.repository import InsightRepository
from thoughtgraph.features.lineage.repository import LineageRepository
from thoughtgraph.features.ops.repository import OpsRepository
from thoughtgraph.features.procedures.repository import ProcedureRepository
from thoughtgraph.features.reembedding.repository import ReembeddingRepository
from thoughtgraph.features.retention.repository import RetentionRepository
from thoughtgraph.features.search.expansion_repository import ExpansionRepository
from thoughtgraph.features.search.neighbours_repository import NeighbourRepository
from thoughtgraph.features.search.related_repository import RelatedRepository
from thoughtgraph.features.search.repository import RetrievalRepository
from thoughtgraph.features.thoughts.repository import ThoughtRepository
from thoughtgraph.features.topics.repository import TopicRepository
from thoughtgraph.features.transfer.repository import TransferRepository
from thoughtgraph.store.beam import MIN_CANDIDATES, OVERSAMPLE
from thoughtgraph.store.executor import Executor


@dataclass(frozen=True)
class Repositories:
    executor: Executor
    thoughts: ThoughtRepository
    lineage: LineageRepository
    changes: ChangeRepository
    retrieval: RetrievalRepository
    neighbours: NeighbourRepository
    expansion: ExpansionRepository
    related: RelatedRepository
    topics: TopicRepository
    contradictions: ContradictionRepository
    scan_cursor: ScanCursorRepository
    supersession: SupersessionRepository
    merges: MergeRepository
    runs: RunRepository
    proposals: ProposalRepository
    consent: ConsentRepository
    checkpoints: CheckpointRepository
    reembedding: ReembeddingRepository
    extraction: ExtractionRepository
    retention: RetentionRepository
    episodes: EpisodeRepository
    insights: InsightRepository
    transfer: TransferRepository
    ops: OpsRepository
    procedures: ProcedureRepository

    @classmethod
    def over(cls, executor: Executor) -> Repositories:
        beam = {"oversample": OVERSAMPLE, "min_candidates": MIN_CANDIDATES}
        return cls(
            executor=executor,
            thoughts=ThoughtRepository(executor, **beam),
            lineage=LineageRepository(executor, **beam),
            changes=ChangeRepository(executor),
            retrieval=RetrievalRepository(executor),
            neighbours=NeighbourRepository(executor, **beam),
            expansion=ExpansionRepository(executor),
            related=RelatedRepository(executor),
            topics=TopicRepository(executor),
            contradictions=ContradictionRepository(executor),
            scan_cursor=ScanCursorRepository(executor),
            supersession=SupersessionRepository(executor),
            merges=MergeRepository(executor),
            runs=RunRepository(executor),
            proposals=ProposalRepository(executor),
            consent=ConsentRepository(executor),
            checkpoints=CheckpointRepository(executor),
            reembedding=ReembeddingRepository(executor),
            extraction=ExtractionRepository(executor),
            retention=RetentionRepository(executor),
            episodes=EpisodeRepository(executor),
            insights=InsightRepository(executor),
            transfer=TransferRepository(executor),
            ops=OpsRepository(executor),
            procedures=ProcedureRepository(executor),
        )
