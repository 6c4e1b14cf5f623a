// Events that concern a thought: its own creation and every refinement or consolidation of
// it, oldest first, at most $limit.
MATCH (e:ChangeEvent)-[:CONCERNS]->(t:Thought {id: $thoughtId})
WHERE e.namespace = $namespace
RETURN e.id AS id, e.namespace AS namespace, e.revision AS revision, e.kind AS kind,
       e.thoughtId AS thoughtId, e.sourceIds AS sourceIds, e.actorId AS actorId,
       e.actorName AS actorName, e.at AS at, e.actorKeyId AS actorKeyId
ORDER BY revision
LIMIT $limit
