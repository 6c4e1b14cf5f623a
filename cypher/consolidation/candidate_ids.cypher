// One page of what a consolidation run or a scheduled scan looks at: current candidate
// thoughts in (createdAt, id) order after the cursor, as ids (with the createdAt of the
// cursor). A run takes the thoughts and embeddings from its snapshot, or reads them.
MATCH (t:Thought)
WHERE t.namespace = $namespace AND {{ current(t) }} AND {{ consolidation_candidate(t) }}
  AND (t.createdAt > $afterCreatedAt OR (t.createdAt = $afterCreatedAt AND t.id > $afterId))
RETURN t.id AS id, t.createdAt AS createdAt
ORDER BY createdAt, id
LIMIT $limit
