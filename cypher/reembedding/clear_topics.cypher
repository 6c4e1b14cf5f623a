// A batch of a namespace's topics loses its vectors of the pinned (retired) space.
MATCH (tp:Topic)
WHERE tp.namespace = $namespace AND tp.{{ space(embedding) }} IS NOT NULL
WITH tp
LIMIT $limit
SET tp.{{ space(embedding) }} = null
RETURN count(tp) AS cleared
