// Lineage edges whose reason means something like the query, from both edge indexes.
{{ vector_query_relationships({{ space(refines_reason_embedding) }}, REFINES, {{ space(reasonEmbedding) }}, $candidates, $embedding) }}
WITH relationship AS r, score
WHERE r.namespace = $namespace
RETURN startNode(r).id AS fromId, endNode(r).id AS toId, 'REFINES' AS relation,
       r.reason AS reason, r.createdAt AS createdAt, score AS rawScore
UNION ALL
{{ vector_query_relationships({{ space(consolidates_reason_embedding) }}, CONSOLIDATES, {{ space(reasonEmbedding) }}, $candidates, $embedding) }}
WITH relationship AS r, score
WHERE r.namespace = $namespace
RETURN startNode(r).id AS fromId, endNode(r).id AS toId, 'CONSOLIDATES' AS relation,
       r.reason AS reason, r.createdAt AS createdAt, score AS rawScore
UNION ALL
{{ vector_query_relationships({{ space(supersedes_reason_embedding) }}, SUPERSEDES, {{ space(reasonEmbedding) }}, $candidates, $embedding) }}
WITH relationship AS r, score
WHERE r.namespace = $namespace
RETURN startNode(r).id AS fromId, endNode(r).id AS toId, 'SUPERSEDES' AS relation,
       r.reason AS reason, r.createdAt AS createdAt, score AS rawScore
