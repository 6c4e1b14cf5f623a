// A thought's RELATED_TO neighbours (either direction), strongest first.
// WITH t anchors the walk at $id: with the time view's filter on o, FalkorDB's planner
// started from a scan of every thought.
MATCH (t:Thought {id: $id})
WHERE t.namespace = $namespace
WITH t
MATCH (t)-[r:RELATED_TO]-(o:Thought)
WHERE {{ visible(o) }}
RETURN o.id AS id, r.strength AS strength
ORDER BY strength DESC, id
LIMIT $limit
