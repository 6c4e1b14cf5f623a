// How many thoughts forgetting would soft-delete now (dry runs).
MATCH (t:Thought)
WHERE t.namespace = $namespace AND coalesce(t.state, 'active') = 'active'
  AND coalesce(t.pinned, false) = false
  AND (coalesce(t.importance, 3) < $belowImportance OR t.supersededAt IS NOT NULL)
  AND coalesce(t.lastAccessedAt, t.createdAt) < $accessedBefore
RETURN count(t) AS due
