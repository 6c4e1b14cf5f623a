// The reasons of the lineage edges leaving a page of a namespace's thoughts (id order
// after $after) that have no vector in the pinned space. Every thought of the page comes
// back, with a null type when none of its edges needs one, so the page's cursor moves on.
MATCH (a:Thought)
WHERE a.namespace = $namespace AND a.id > $after
WITH a
ORDER BY a.id
LIMIT $limit
OPTIONAL MATCH (a)-[r:REFINES|CONSOLIDATES|SUPERSEDES]->(b:Thought)
WHERE r.reason IS NOT NULL AND r.{{ space(reasonEmbedding) }} IS NULL
RETURN a.id AS sourceId, type(r) AS type, b.id AS targetId, r.reason AS text
ORDER BY sourceId
