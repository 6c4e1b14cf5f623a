// RELATED_TO links among a search's candidates (each edge once: it runs from the lower id
// to the higher), for the `related` prior of the score.
UNWIND $ids AS id
MATCH (a:Thought {id: id})-[r:RELATED_TO]->(b:Thought)
WHERE a.namespace = $namespace AND b.id IN $ids
RETURN a.id AS a, b.id AS b, r.strength AS strength
