// One breadth-first layer of a lineage walk, both ways in one round trip: the sources of
// the thoughts in $down (one step further into the past) and the thoughts refining or
// consolidating those in $up (one step further on). The caller keeps the visited set and
// the node budget, so a walk costs the thoughts it visits, not the paths between them
// (paths multiply in a DAG of consolidations). $limit bounds each half.
MATCH (t:Thought)-[:REFINES|CONSOLIDATES]->(s:Thought)
WHERE t.id IN $down AND t.namespace = $namespace
WITH DISTINCT s.id AS id
RETURN id, -1 AS direction
LIMIT $limit
UNION ALL
MATCH (r:Thought)-[:REFINES|CONSOLIDATES]->(t:Thought)
WHERE t.id IN $up AND t.namespace = $namespace
WITH DISTINCT r.id AS id
RETURN id, 1 AS direction
LIMIT $limit
