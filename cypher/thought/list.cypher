// One page of thoughts, newest first; the cursor is the last (createdAt, id) seen. The
// cursor is also written as a plain range on createdAt so that Neo4j seeks the
// (namespace, createdAt) index instead of scanning every namespace's thoughts.
MATCH (t:Thought)
WHERE t.namespace = $namespace
  AND t.createdAt <= coalesce($afterCreatedAt, 9223372036854775807)
  AND ($afterCreatedAt IS NULL OR t.createdAt < $afterCreatedAt OR t.id < $afterId)
  AND ($type IS NULL OR t.type = $type)
  AND ($tag IS NULL OR $tag IN t.tags)
  AND ($agentId IS NULL OR t.agentId = $agentId)
  AND ($kind IS NULL OR coalesce(t.kind, 'fact') = $kind)
  AND ($topicId IS NULL OR t.topicId = $topicId)
  AND {{ visible(t) }}
RETURN {{ thought_fields(t) }}
ORDER BY createdAt DESC, id DESC
LIMIT $limit
