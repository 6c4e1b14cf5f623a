// A batch of a namespace's lineage reasons loses its vectors of the pinned (retired) space.
MATCH (:Thought {namespace: $namespace})-[r:REFINES|CONSOLIDATES|SUPERSEDES]->(:Thought)
WHERE r.{{ space(reasonEmbedding) }} IS NOT NULL
WITH r
LIMIT $limit
SET r.{{ space(reasonEmbedding) }} = null
RETURN count(r) AS cleared
