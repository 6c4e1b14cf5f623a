// The bare engine vector query, with no namespace filter or projection: the benchmark's baseline.
{{ vector_query_nodes(thought_embedding, Thought, embedding, $candidates, $embedding) }}
RETURN node.id AS id, score AS rawScore
