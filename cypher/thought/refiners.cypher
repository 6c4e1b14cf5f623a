// Every refinement or consolidation of the given thoughts, in one batched query.
MATCH (r:Thought)-[:REFINES|CONSOLIDATES]->(t:Thought)
WHERE t.id IN $ids AND t.namespace = $namespace
RETURN t.id AS thoughtId, r.id AS refinerId, r.revision AS revision
