"""What a GraphQL operation may cost, computed before it runs, in time linear in the document.

One pass over the operation measures its depth, its aliases and its cost. Each fragment is
measured once and reused wherever it is spread. Strawberry's depth and alias limiters walk
every expansion instead: 14 fragments that each spread the next three times stalled
every request for seconds.

The cost of a field is its weight (a read of the store weighs more, a scalar read off its
parent nothing) times the number of times it can run: the product of the largest sizes of
the lists above it. A list's largest size comes from its argument (``first``, ``k``,
``limit``, given or by variable, or the default), or from a documented cap (a thought's
sources and refinements, a lineage's nodes). Cost therefore bounds the work and the
response size before a single resolver runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    get_named_type,
    get_nullable_type,
    is_composite_type,
    is_list_type,
)
from graphql.language import DocumentNode
from graphql.utilities import value_from_ast_untyped

from thoughtgraph.domain.checkpoints import DEFAULT_LIST, MAX_LIST
from thoughtgraph.domain.procedures import MAX_STEPS, MAX_TEMPLATE_SLOTS
from thoughtgraph.domain.retrieval import MAX_LIMIT
from thoughtgraph.domain.validation import (
    MAX_CHANGES,
    MAX_HISTORY,
    MAX_K,
    MAX_LINEAGE_NODES,
    MAX_PAGE_SIZE,
    MAX_REFINEMENTS,
    MAX_SOURCES,
)
from thoughtgraph.features.consolidation.proposals import MAX_PARTS, MAX_PROPOSALS
from thoughtgraph.features.ops.service import MAX_EVENTS
from thoughtgraph.features.procedures.service import MAX_LIST as MAX_PROCEDURES
from thoughtgraph.features.procedures.service import MAX_PATTERNS

UNKNOWN_LIST_SIZE = 100  # any list not named below: counted as this long

# Root fields by what one call costs: embedding, index search, traversal, writes.
ROOT_WEIGHTS = {
    "search": 10,
    "searchTiered": 12,
    "searchChanges": 10,
    "lineage": 20,
    "thoughts": 5,
    "thought": 1,
    "history": 2,
    "changes": 2,
    "contribute": 20,
    # Per original: its weight is multiplied by the number of inputs (BATCH_ROOTS).
    "contributeMany": 5,
    "refine": 20,
    "consolidate": 20,
    "related": 3,
    "topics": 5,
    "topic": 1,
    "contradictions": 5,
    "contradiction": 1,
    "episodes": 5,
    "episode": 1,
    "consolidationRuns": 5,
    "consolidationRun": 1,
    "supersede": 20,
    "forget": 20,
    "restore": 20,
    "pin": 20,
    "resolveContradiction": 20,
    "runConsolidation": 20,
    "scanContradictions": 20,
    # Publishes one task; the job's model calls run on a worker, under their own budget.
    "requestInsights": 20,
    "undoConsolidation": 20,
    # Per user named: reads up to 2,000 private thoughts and compares them with the others'
    # in memory (ten users reach the heavy-query gate).
    "proposeMerge": 20,
    "decideMerge": 20,
    "mergeProposals": 5,
    # Deciding a consent request may write the held thought and supersede the old value.
    "approveConsent": 20,
    "rejectConsent": 20,
    "consentRequests": 5,
    # Checkpoints: one indexed write or read each; a listing is sized by `first`, and each
    # checkpoint's `data` (up to TG_CHECKPOINT_MAX_BYTES) weighs as a large read.
    # Reads the store's record; publishes one task (the re-embed runs on a worker).
    "vectorSpaces": 1,
    "reembed": 20,
    "saveCheckpoint": 5,
    "deleteCheckpointThread": 5,
    "checkpoint": 1,
    "checkpoints": 5,
    # Procedural memory: a recorded workflow or pattern is a contribution (an embedding
    # and a write); extraction parses each file given (BATCH_ROOTS) and may store patterns.
    "recordWorkflow": 20,
    "recordPattern": 20,
    # A model call on the episode's narrative, then a recorded workflow.
    "recordWorkflowFromEpisode": 40,
    "extractPatterns": 20,
    "procedure": 1,
    "procedures": 5,
    # Context assembly: several searches (each an embedding) and listings, then packing.
    "assembleContext": 40,
    "predictContext": 40,
    "sessionBlock": 40,
    "injectSessionBlock": 40,
    "changesSince": 2,
    "cite": 20,
    "ignore": 20,
    # Extraction embeds (and may ask a model about) every thought it finds: many writes.
    "ingestEpisode": 100,
    # A search, and with a language model configured up to two model calls.
    "recall": 40,
    # Operational events: a listing, and a count over the namespace's kept events.
    "operationalEvents": 5,
    "operationCounts": 10,
    "namespaces": 2,
}
# Root fields whose weight counts once per item of a list argument: (field, argument).
BATCH_ROOTS = {
    "contributeMany": "inputs",
    "proposeMerge": "userIds",
    "extractPatterns": "files",
}
# Scalars that are large reads of their own: a checkpoint's data may hold hundreds of KB.
HEAVY_SCALARS = {"data": 20}
# Root fields whose boolean argument, unless false, multiplies their work: an expanded
# search (expand true, or left out: it expands hits from sessions) runs a base search for
# 50, a search per content word and the session reads (app/features/search/expanded.py).
HEAVY_FLAGS = {"search": ("expand", 5)}
# Fields resolved through a DataLoader (a batched store read) weigh 1 even when scalar.
LOADER_FIELDS = {
    "sources",
    "refinements",
    "refinedBy",
    "superseded",
    "similarThought",
    "from",
    "to",
    "supersededBy",
    "topic",
    "thoughtA",
    "thoughtB",
    "mergedThought",
    "merges",
}
# (field, argument, default, maximum): a list whose size an argument chooses. By field
# name wherever it appears: a topic's and an episode's `thoughts` take `first` (default 20)
# like the root listing.
SIZED_BY_ARGUMENT = {
    "thoughts": ("first", 20, MAX_PAGE_SIZE),
    "topics": ("first", 20, MAX_PAGE_SIZE),
    "contradictions": ("first", 20, MAX_PAGE_SIZE),
    "episodes": ("first", 20, MAX_PAGE_SIZE),
    "consolidationRuns": ("first", 20, MAX_PAGE_SIZE),
    "merges": ("first", 20, MAX_PAGE_SIZE),  # a consolidation run's
    "related": ("first", 10, MAX_PAGE_SIZE),
    "search": ("k", 10, MAX_K),
    "searchChanges": ("k", 10, MAX_K),
    "changes": ("limit", 100, MAX_CHANGES),
    "changesSince": ("limit", 100, MAX_CHANGES),
    "operationalEvents": ("first", 50, MAX_EVENTS),
    "mergeProposals": ("first", 20, MAX_PAGE_SIZE),
    "consentRequests": ("first", 20, MAX_PAGE_SIZE),
    "checkpoints": ("first", DEFAULT_LIST, MAX_LIST),
    "procedures": ("first", 20, MAX_PROCEDURES),
}
# Lists with a fixed cap, wherever they appear. A connection's own lists (nodes, edges,
# events) count once: the field above them was already multiplied by first or limit.
CAPPED_LISTS = {
    "nodes": 1,
    "edges": 1,
    "events": 1,
    "sources": MAX_SOURCES,
    "refinements": MAX_REFINEMENTS,
    "history": MAX_HISTORY,
    "chain": MAX_LINEAGE_NODES,
    "undoConsolidation": MAX_SOURCES,  # a merge's sources
    "proposeMerge": MAX_PROPOSALS,
    "parts": MAX_PARTS,
    "steps": MAX_STEPS,
    "template": MAX_TEMPLATE_SLOTS,
    "patterns": MAX_PATTERNS,
    "hits": MAX_LIMIT,  # recall's hits, searchTiered's thoughts (both at most MAX_LIMIT)
}


@dataclass
class Measure:
    depth: int = 0
    aliases: int = 0
    cost: int = 0


@dataclass
class _Walk:
    schema: GraphQLSchema
    fragments: Mapping[str, FragmentDefinitionNode]
    variables: Mapping[str, Any]
    memo: dict[str, Measure] = field(default_factory=dict)
    in_progress: set[str] = field(default_factory=set)

    def selection_set(
        self, node: SelectionSetNode | None, parent: GraphQLNamedType | None
    ) -> Measure:
        total = Measure()
        if node is None or not isinstance(parent, GraphQLObjectType):
            # Interfaces and unions do not occur in this schema; anything unknown is left
            # to graphql-core's validation, which refuses it.
            return total
        for selection in node.selections:
            if isinstance(selection, FieldNode):
                part = self.field(selection, parent)
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                target = self.schema.get_type(condition.name.value) if condition else parent
                part = self.selection_set(selection.selection_set, target)
            elif isinstance(selection, FragmentSpreadNode):
                part = self.fragment(selection.name.value)
            else:  # pragma: no cover - the AST has no other selection kind
                continue
            total.depth = max(total.depth, part.depth)
            total.aliases += part.aliases
            total.cost += part.cost
        return total

    def fragment(self, name: str) -> Measure:
        found = self.memo.get(name)
        if found is not None:
            return found
        definition = self.fragments.get(name)
        if definition is None or name in self.in_progress:
            return Measure()  # unknown or cyclic: graphql-core's validation refuses it
        self.in_progress.add(name)
        target = self.schema.get_type(definition.type_condition.name.value)
        measured = self.selection_set(definition.selection_set, target)
        self.in_progress.discard(name)
        self.memo[name] = measured
        return measured

    def field(self, node: FieldNode, parent: GraphQLObjectType) -> Measure:
        name = node.name.value
        alias = 1 if node.alias is not None else 0
        definition = parent.fields.get(name)
        if definition is None:
            # __typename and introspection (__schema, __type): bounded by the schema itself;
            # an unknown field is refused by graphql-core's validation. Aliases still count.
            return Measure(depth=1, aliases=alias)
        field_type = definition.type
        named = get_named_type(field_type)
        is_root = parent in (self.schema.query_type, self.schema.mutation_type)
        if is_root:
            weight = ROOT_WEIGHTS.get(name, 1) * self.items(node, BATCH_ROOTS.get(name))
            if name in HEAVY_FLAGS and not self.off(node, HEAVY_FLAGS[name][0]):
                weight *= HEAVY_FLAGS[name][1]
        elif name in LOADER_FIELDS or is_composite_type(named):
            weight = 1
        else:
            weight = HEAVY_SCALARS.get(name, 0)
        times = self.list_size(node, name, field_type)
        child = self.selection_set(node.selection_set, named)
        return Measure(
            depth=child.depth + 1,
            aliases=child.aliases + alias,
            cost=weight + times * child.cost,
        )

    def list_size(self, node: FieldNode, name: str, field_type: Any) -> int:
        """How many items the field's children run for: its argument's value or its cap."""
        sized = SIZED_BY_ARGUMENT.get(name)
        if sized is not None:
            argument, default, maximum = sized
            return max(1, min(self.argument(node, argument, default), maximum))
        if not is_list_type(get_nullable_type(field_type)):
            return 1
        return CAPPED_LISTS.get(name, UNKNOWN_LIST_SIZE)

    def given(self, node: FieldNode, name: str | None) -> Any:
        """An argument's value, written literally or by variable (None when absent)."""
        for argument in node.arguments or () if name else ():
            if argument.name.value == name:
                return value_from_ast_untyped(argument.value, dict(self.variables))
        return None

    def items(self, node: FieldNode, name: str | None) -> int:
        """How many items a list argument carries (at least 1)."""
        given = self.given(node, name)
        return max(1, len(given)) if isinstance(given, list) else 1

    def off(self, node: FieldNode, name: str) -> bool:
        """Whether a boolean argument is given as false."""
        return self.given(node, name) is False

    def argument(self, node: FieldNode, name: str, default: int) -> int:
        given = self.given(node, name)
        return given if isinstance(given, int) and not isinstance(given, bool) else default


def measure_operation(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation_name: str | None,
    variables: Mapping[str, Any] | None,
) -> Measure | None:
    """Depth, aliases and cost of the operation that would run; None when there is no
    single such operation (graphql-core's validation reports that)."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    chosen = [
        op
        for op in operations
        if operation_name is None or (op.name is not None and op.name.value == operation_name)
    ]
    if len(chosen) != 1:
        return None
    operation = chosen[0]
    root = {
        "query": schema.query_type,
        "mutation": schema.mutation_type,
        "subscription": schema.subscription_type,
    }[operation.operation.value]
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    walk = _Walk(schema=schema, fragments=fragments, variables=variables or {})
    return walk.selection_set(operation.selection_set, root)
