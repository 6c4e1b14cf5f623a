// A topic's current thoughts (active, not superseded), newest first, with embeddings
// when asked (summaries pick the most central ones). One pattern from the topic along
// its BELONGS_TO edges, filtered after the WITH: a WHERE on the thought inside the MATCH
// lets FalkorDB's planner start from every thought of the namespace instead.
MATCH (tp:Topic {id: $topicId})<-[:BELONGS_TO]-(t:Thought)
WITH tp, t
WHERE tp.namespace = $namespace AND {{ current(t) }}
RETURN {{ thought_fields(t) }},
       CASE WHEN $withEmbeddings THEN t.{{ space(embedding) }} ELSE null END AS embedding
ORDER BY createdAt DESC, id DESC
LIMIT $limit
