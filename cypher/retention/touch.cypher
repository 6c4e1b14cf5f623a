// Usage: thoughts returned to a caller were accessed now. Not a change to knowledge, so
// no event; batched by the service, one statement per flush.
UNWIND $ids AS thoughtId
MATCH (t:Thought {id: thoughtId})
WHERE t.namespace = $namespace
SET t.lastAccessedAt = $at, t.accessCount = coalesce(t.accessCount, 0) + 1
RETURN count(t) AS touched
