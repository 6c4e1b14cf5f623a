// One page of thoughts, newest first; the cursor is the last (createdAt, id) seen.
MATCH (t:Thought)
WHERE t.namespace = $namespace
  AND ($type IS NULL OR t.type = $type)
  AND ($tag IS NULL OR $tag IN t.tags)
  AND ($agentId IS NULL OR t.agentId = $agentId)
  AND ($afterCreatedAt IS NULL OR t.createdAt < $afterCreatedAt
       OR (t.createdAt = $afterCreatedAt AND t.id < $afterId))
RETURN {{ thought_fields(t) }}
ORDER BY createdAt DESC, id DESC
LIMIT $limit
