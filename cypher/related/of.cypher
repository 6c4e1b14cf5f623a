// A thought's RELATED_TO neighbours (either direction), strongest first.
MATCH (t:Thought {id: $id})-[r:RELATED_TO]-(o:Thought)
WHERE t.namespace = $namespace AND {{ visible(o) }}
RETURN o.id AS id, r.strength AS strength
ORDER BY strength DESC, id
LIMIT $limit
