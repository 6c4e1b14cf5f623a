// Usage: thoughts returned to callers were accessed (each row: an id and how many times
// since the last flush). Not a change to knowledge, so no event; batched by the service.
UNWIND $rows AS row
MATCH (t:Thought {id: row.id})
WHERE t.namespace = $namespace
SET t.lastAccessedAt = $at, t.accessCount = coalesce(t.accessCount, 0) + row.count
RETURN count(t) AS touched
