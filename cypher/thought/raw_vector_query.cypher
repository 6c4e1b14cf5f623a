// The bare engine vector query on a namespace's index, with no filter or projection: the
// benchmark's baseline.
{{ vector_query_namespace_nodes(Thought, {{ space(embedding) }}, $candidates, $embedding) }}
RETURN node.id AS id, score AS rawScore
