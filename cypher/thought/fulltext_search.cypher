{{ fulltext_query_nodes(thought_content, Thought, $query) }}
WITH node AS t, score
WHERE t.namespace = $namespace AND {{ visible(t) }}
RETURN {{ thought_fields(t) }}, score AS rawScore
ORDER BY rawScore DESC
LIMIT $limit
