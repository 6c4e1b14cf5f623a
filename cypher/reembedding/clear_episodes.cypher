// A batch of a namespace's episodes loses its vectors of the pinned (retired) space.
MATCH (ep:Episode)
WHERE ep.namespace = $namespace AND ep.{{ space(embedding) }} IS NOT NULL
WITH ep
LIMIT $limit
SET ep.{{ space(embedding) }} = null
RETURN count(ep) AS cleared
