// Creates one thought, its lineage edges, its PART_OF edge to an episode and its change
// event in one atomic statement. Returns no row when a source (or the episode) is missing
// from the namespace or the id already exists, so a retried write never duplicates
// anything and a failed check writes nothing.
MATCH (s:Thought)
WHERE s.id IN $sourceIds AND s.namespace = $namespace
WITH collect(s) AS sources
WHERE size(sources) = size($sourceIds)
OPTIONAL MATCH (ep:Episode {id: $episodeId})
WITH sources, ep
WHERE $episodeId IS NULL OR (ep IS NOT NULL AND ep.namespace = $namespace)
OPTIONAL MATCH (existing:Thought {id: $id})
WITH sources, ep, existing
WHERE existing IS NULL
CREATE (t:Thought {
  id: $id, namespace: $namespace, type: $type, content: $content,
  agentId: $agentId, agentName: $agentName, context: $context, sessionId: $sessionId,
  tags: $tags, pheromoneWeight: $pheromoneWeight, createdAt: $createdAt,
  sourceIds: $sourceIds, {{ space(embedding) }}: {{ vector($embedding) }},
  kind: $kind, salience: $salience, importance: $importance, pinned: $pinned,
  category: $category, accessCount: 0, state: 'active', validFrom: $validFrom,
  validTo: $validTo, episodeId: $episodeId, scope: $scope, ownerId: $ownerId,
  about: $about
})
{{ namespace_label(t) }}
{{ thought_vector(t) }}
// A label per type as well (Neo4j Browser styles by label; queries can match on it). A
// label cannot be a parameter on FalkorDB, so each is set under its own condition.
FOREACH (_ IN CASE WHEN $type = 'original' THEN [1] ELSE [] END | SET t:Original)
FOREACH (_ IN CASE WHEN $type = 'refinement' THEN [1] ELSE [] END | SET t:Refinement)
FOREACH (_ IN CASE WHEN $type = 'consolidation' THEN [1] ELSE [] END | SET t:Consolidation)
FOREACH (s IN CASE WHEN $type = 'refinement' THEN sources ELSE [] END |
  CREATE (t)-[:REFINES {namespace: $namespace, reason: $reason,
                        {{ space(reasonEmbedding) }}: {{ vector($reasonEmbedding) }}, createdAt: $createdAt}]->(s)
)
FOREACH (s IN CASE WHEN $type = 'consolidation' THEN sources ELSE [] END |
  CREATE (t)-[:CONSOLIDATES {namespace: $namespace, reason: $reason,
                             {{ space(reasonEmbedding) }}: {{ vector($reasonEmbedding) }}, createdAt: $createdAt}]->(s)
)
FOREACH (e IN CASE WHEN ep IS NULL THEN [] ELSE [ep] END | CREATE (t)-[:PART_OF]->(e))
WITH t, sources
{{ append_change(t) }}
SET t.revision = log.revision
FOREACH (s IN sources | CREATE (ev)-[:CONCERNS]->(s))
RETURN t.id AS id, log.revision AS revision
