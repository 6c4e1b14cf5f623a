// Lineage and supersession edges of one namespace whose reason means something like the query. Neo4j's
// relationship vector indexes span every namespace (edge types cannot be per namespace),
// so this scans the namespace's own reasoned edges exactly instead: complete, and its
// cost depends on the namespace's size only. The hint keeps it so: with few edges in the
// whole database the planner would rather scan every namespace's REFINES/CONSOLIDATES
// edges, which grows with the other namespaces (tests/test_neo4j_plans.py). rawScore is
// on the index scale, (1 + cos) / 2.
MATCH (a:Thought)-[r:REFINES|CONSOLIDATES|SUPERSEDES]->(b:Thought)
USING INDEX a:Thought(namespace)
WHERE a.namespace = $namespace AND r.{{ space(reasonEmbedding) }} IS NOT NULL
WITH a, r, b, vector.similarity.cosine(r.{{ space(reasonEmbedding) }}, $embedding) AS rawScore
ORDER BY rawScore DESC
LIMIT $candidates
RETURN a.id AS fromId, b.id AS toId, type(r) AS relation, r.reason AS reason,
       r.createdAt AS createdAt, rawScore
