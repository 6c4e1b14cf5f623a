"""A workflow or pattern between its checks and its write: what it embeds, its vectors
from one embedding call for any number of drafts, and the thought record it is written
as (an original, or a refinement of the one procedure it refines)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from thoughtgraph.domain.models import ThoughtRecord, ThoughtType
from thoughtgraph.domain.procedures import Procedure, ProcedureSpec
from thoughtgraph.domain.rules import inherited_pheromone
from thoughtgraph.features.thoughts.inputs import ValidatedInput, new_thought
from thoughtgraph.ports.services import Embeddings

Vectors = list[list[float]]  # a draft's: its content's, then its reason's when it has one


@dataclass(frozen=True)
class Draft:
    """A procedure checked and ready to embed and write: its input, its structure, and
    the workflow or pattern it refines, if any."""

    data: ValidatedInput
    spec: ProcedureSpec
    source: Procedure | None = None

    @property
    def texts(self) -> list[str]:
        """What is embedded: the content, and the reason of a refinement."""
        return [self.data.content] + ([self.data.reason] if self.data.reason else [])

    def record(self, vectors: Vectors, thought_id: str, now_ms: int) -> ThoughtRecord:
        """The thought as it is written, with its vectors."""
        source = self.source.thought if self.source is not None else None
        kind = ThoughtType.ORIGINAL if source is None else ThoughtType.REFINEMENT
        thought = new_thought(
            self.data,
            kind,
            thought_id,
            now_ms,
            source_ids=(source.id,) if source is not None else (),
            pheromone_weight=inherited_pheromone(
                kind, [source.pheromone_weight] if source is not None else []
            ),
        )
        return ThoughtRecord(
            thought=thought,
            embedding=tuple(vectors[0]),
            reason=self.data.reason,
            reason_embedding=tuple(vectors[1]) if self.data.reason else None,
            actor_key_id=self.data.key_id,
        )


async def embed_drafts(embedder: Embeddings, drafts: Sequence[Draft]) -> list[Vectors]:
    """Each draft's vectors, from one embedding call for all of them."""
    texts = [text for draft in drafts for text in draft.texts]
    vectors = await embedder.async_embed_documents(texts) if texts else []
    split, at = [], 0
    for draft in drafts:
        split.append(vectors[at : at + len(draft.texts)])
        at += len(draft.texts)
    return split
