// Usage: an agent says the thought was retrieved but not used; it divides the retention
// score down (toward cold and archived). No change event: usage is not knowledge.
MATCH (t:Thought {id: $id})
WHERE t.namespace = $namespace
SET t.ignoreCount = coalesce(t.ignoreCount, 0) + 1
RETURN {{ thought_fields(t) }}
