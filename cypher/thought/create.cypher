// Creates one thought, its lineage edges and its change event in one atomic statement.
// Returns no row when a source is missing from the namespace or the id already exists,
// so a retried write never duplicates anything and a failed check writes nothing.
MATCH (s:Thought)
WHERE s.id IN $sourceIds AND s.namespace = $namespace
WITH collect(s) AS sources
WHERE size(sources) = size($sourceIds)
OPTIONAL MATCH (existing:Thought {id: $id})
WITH sources, existing
WHERE existing IS NULL
MERGE (log:ChangeLog {namespace: $namespace})
ON CREATE SET log.revision = 0
// Take the write lock before reading the counter so concurrent writers never share a revision.
SET log.lock = true
SET log.revision = log.revision + 1
CREATE (t:Thought {
  id: $id, namespace: $namespace, type: $type, content: $content,
  agentId: $agentId, agentName: $agentName, context: $context, sessionId: $sessionId,
  tags: $tags, pheromoneWeight: $pheromoneWeight, createdAt: $createdAt,
  sourceIds: $sourceIds, revision: log.revision, embedding: {{ vector($embedding) }}
})
{{ namespace_label(t) }}
// A label per type as well (Neo4j Browser styles by label; queries can match on it). A
// label cannot be a parameter on FalkorDB, so each is set under its own condition.
FOREACH (_ IN CASE WHEN $type = 'original' THEN [1] ELSE [] END | SET t:Original)
FOREACH (_ IN CASE WHEN $type = 'refinement' THEN [1] ELSE [] END | SET t:Refinement)
FOREACH (_ IN CASE WHEN $type = 'consolidation' THEN [1] ELSE [] END | SET t:Consolidation)
FOREACH (s IN CASE WHEN $type = 'refinement' THEN sources ELSE [] END |
  CREATE (t)-[:REFINES {namespace: $namespace, reason: $reason,
                        reasonEmbedding: {{ vector($reasonEmbedding) }}, createdAt: $createdAt}]->(s)
)
FOREACH (s IN CASE WHEN $type = 'consolidation' THEN sources ELSE [] END |
  CREATE (t)-[:CONSOLIDATES {namespace: $namespace, reason: $reason,
                             reasonEmbedding: {{ vector($reasonEmbedding) }}, createdAt: $createdAt}]->(s)
)
CREATE (e:ChangeEvent {
  id: $eventId, namespace: $namespace, revision: log.revision, kind: $eventKind,
  thoughtId: $id, sourceIds: $sourceIds, actorId: $agentId, actorName: $agentName,
  actorKeyId: $actorKeyId, at: $createdAt
})
CREATE (e)-[:CONCERNS]->(t)
FOREACH (s IN sources | CREATE (e)-[:CONCERNS]->(s))
RETURN t.id AS id, log.revision AS revision
