// The RELATED_TO neighbours the given thoughts already have (dry runs count only the
// links a run would add).
UNWIND $ids AS thoughtId
MATCH (t:Thought {id: thoughtId})-[:RELATED_TO]-(o:Thought)
WHERE t.namespace = $namespace
RETURN t.id AS id, collect(o.id) AS neighbours
