// Every refinement or consolidation of the given thoughts, in one batched query (a
// forgotten one, such as an undone merge, no longer supersedes its sources).
MATCH (r:Thought)-[:REFINES|CONSOLIDATES]->(t:Thought)
WHERE t.id IN $ids AND t.namespace = $namespace AND coalesce(r.state, 'active') = 'active'
RETURN t.id AS thoughtId, r.id AS refinerId, r.revision AS revision
