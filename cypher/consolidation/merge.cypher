// Merges near-duplicates: a consolidation thought over the sources (CONSOLIDATES edges),
// the sources retired into it (restorable with unmerge), and the event, in one write.
// The merged thought's id comes from its sources: a retried run finds it (no row).
// runId: the consolidation run that merged them (null for an accepted merge proposal).
MATCH (s:Thought)
WHERE s.id IN $sourceIds AND s.namespace = $namespace AND {{ current(s) }}
WITH collect(s) AS sources
WHERE size(sources) = size($sourceIds)
OPTIONAL MATCH (existing:Thought {id: $id})
WITH sources, existing
WHERE existing IS NULL
CREATE (t:Thought:Consolidation {
  id: $id, namespace: $namespace, type: 'consolidation', content: $content,
  agentId: $actorId, agentName: $actorName, tags: $tags, pheromoneWeight: $pheromoneWeight,
  createdAt: $at, sourceIds: $sourceIds, {{ space(embedding) }}: {{ vector($embedding) }},
  kind: $kind, salience: $salience, importance: $importance, pinned: $pinned,
  accessCount: 0, state: 'active', mergeOf: $sourceIds, scope: $scope, ownerId: $ownerId,
  runId: $runId
})
{{ namespace_label(t) }}
{{ thought_vector(t) }}
FOREACH (s IN sources |
  CREATE (t)-[:CONSOLIDATES {namespace: $namespace, reason: $reason,
                             {{ space(reasonEmbedding) }}: {{ vector($reasonEmbedding) }}, createdAt: $at}]->(s)
  SET s.supersededAt = $at, s.supersededBy = $id, s.mergedInto = $id
)
WITH t, sources
{{ append_change(t) }}
SET t.revision = log.revision
FOREACH (s IN sources | CREATE (ev)-[:CONCERNS]->(s))
RETURN t.id AS id, log.revision AS revision
