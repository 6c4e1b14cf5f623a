// Usage: an agent says the thought influenced an action. It
// counts as a use (lastAccessedAt) and raises the retention score. Usage is not
// knowledge: no change event, like retention/touch. One SET on one node.
MATCH (t:Thought {id: $id})
WHERE t.namespace = $namespace
SET t.citeCount = coalesce(t.citeCount, 0) + 1, t.lastCitedAt = $at, t.lastAccessedAt = $at,
    t.lastCitedAction = $action
RETURN {{ thought_fields(t) }}
