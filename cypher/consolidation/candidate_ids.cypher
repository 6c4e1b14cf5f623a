// consolidation/candidates as ids (with the createdAt of the page cursor): for a run that
// holds the namespace's thoughts and vectors already (see VectorSnapshot).
MATCH (t:Thought)
WHERE t.namespace = $namespace AND {{ current(t) }} AND t.createdAt <= $until
  AND (t.createdAt > $afterCreatedAt OR (t.createdAt = $afterCreatedAt AND t.id > $afterId))
  AND (t.createdAt >= $since OR coalesce(t.lastAccessedAt, 0) >= $since
       OR coalesce(t.importance, 3) >= $minImportance
       OR coalesce(t.accessCount, 0) >= $minAccessCount)
RETURN t.id AS id, t.createdAt AS createdAt
ORDER BY createdAt, id
LIMIT $limit
