// Creates one workflow or code pattern: a thought (an original, or a refinement of one
// source) with its structure on the same node, its REFINES edge and its change event, in
// one atomic statement (as thought/create, without episodes or consolidations). Returns
// no row when the source is missing from the namespace or the id exists already, so a
// retried write never duplicates anything and a failed check writes nothing.
MATCH (s:Thought)
WHERE s.id IN $sourceIds AND s.namespace = $namespace
WITH collect(s) AS sources
WHERE size(sources) = size($sourceIds)
OPTIONAL MATCH (existing:Thought {id: $id})
WITH sources, existing
WHERE existing IS NULL
CREATE (t:Thought {
  id: $id, namespace: $namespace, type: $type, content: $content,
  agentId: $agentId, agentName: $agentName, context: $context, sessionId: $sessionId,
  tags: $tags, pheromoneWeight: $pheromoneWeight, createdAt: $createdAt,
  sourceIds: $sourceIds, {{ space(embedding) }}: {{ vector($embedding) }},
  kind: $kind, salience: $salience, importance: $importance, pinned: $pinned,
  category: $category, accessCount: 0, state: 'active', validFrom: $validFrom,
  validTo: $validTo, scope: $scope, ownerId: $ownerId, about: $about,
  procedureTrigger: $procedureTrigger, procedureHint: $procedureHint,
  procedureSteps: $procedureSteps, procedureTemplate: $procedureTemplate,
  procedureFiles: $procedureFiles
})
{{ namespace_label(t) }}
{{ thought_vector(t) }}
FOREACH (_ IN CASE WHEN $type = 'original' THEN [1] ELSE [] END | SET t:Original)
FOREACH (_ IN CASE WHEN $type = 'refinement' THEN [1] ELSE [] END | SET t:Refinement)
FOREACH (s IN CASE WHEN $type = 'refinement' THEN sources ELSE [] END |
  CREATE (t)-[:REFINES {namespace: $namespace, reason: $reason,
                        {{ space(reasonEmbedding) }}: {{ vector($reasonEmbedding) }}, createdAt: $createdAt}]->(s)
)
WITH t, sources
{{ append_change(t) }}
SET t.revision = log.revision
FOREACH (s IN sources | CREATE (ev)-[:CONCERNS]->(s))
RETURN t.id AS id, log.revision AS revision
