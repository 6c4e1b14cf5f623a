// Shortest signed distance from one thought to every thought in its lineage: sources
// (followed along REFINES/CONSOLIDATES) negative, refinements positive. Bounded at 11
// hops, one past the deepest allowed maxDepth, so the caller can tell a cut chain.
MATCH p = (root:Thought {id: $id})-[:REFINES|CONSOLIDATES*1..11]->(t:Thought)
WHERE root.namespace = $namespace
RETURN t.id AS id, -min(length(p)) AS depth
UNION ALL
MATCH p = (root:Thought {id: $id})<-[:REFINES|CONSOLIDATES*1..11]-(t:Thought)
WHERE root.namespace = $namespace
RETURN t.id AS id, min(length(p)) AS depth
