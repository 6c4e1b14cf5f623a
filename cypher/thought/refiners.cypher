// Every refinement or consolidation of the given thoughts the reader may see, in one
// batched query (a forgotten one, such as an undone merge, no longer supersedes its
// sources; another user's private refinement changes nothing for this reader).
MATCH (r:Thought)-[:REFINES|CONSOLIDATES]->(t:Thought)
WHERE t.id IN $ids AND t.namespace = $namespace AND coalesce(r.state, 'active') = 'active'
  AND {{ in_scope(r) }}
RETURN t.id AS thoughtId, r.id AS refinerId, r.revision AS revision
