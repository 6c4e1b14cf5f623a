// A page of a namespace's topics without a vector in the pinned space, in id order after
// $after, each with its members' vectors in that space (a topic's vector is their mean
// direction, features.topics).
MATCH (tp:Topic)
WHERE tp.namespace = $namespace AND tp.id > $after AND tp.{{ space(embedding) }} IS NULL
WITH tp
ORDER BY tp.id
LIMIT $limit
OPTIONAL MATCH (t:Thought)-[:BELONGS_TO]->(tp)
WHERE t.{{ space(embedding) }} IS NOT NULL
RETURN tp.id AS id, tp.name AS name, collect(t.{{ space(embedding) }}) AS memberVectors
ORDER BY id
