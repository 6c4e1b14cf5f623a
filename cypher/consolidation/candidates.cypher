// What a consolidation run looks at: current thoughts, written before the run began (not
// what it merges itself), that are new or updated within the window, important, or
// frequently retrieved; in (createdAt, id) order, a page at a time, with their embeddings.
MATCH (t:Thought)
WHERE t.namespace = $namespace AND {{ current(t) }} AND t.createdAt <= $until
  AND (t.createdAt > $afterCreatedAt OR (t.createdAt = $afterCreatedAt AND t.id > $afterId))
  AND (t.createdAt >= $since OR coalesce(t.lastAccessedAt, 0) >= $since
       OR coalesce(t.importance, 3) >= $minImportance
       OR coalesce(t.accessCount, 0) >= $minAccessCount)
RETURN {{ thought_fields(t) }}, t.embedding AS embedding
ORDER BY createdAt, id
LIMIT $limit
