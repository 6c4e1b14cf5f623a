// A topic's current thoughts (active, not superseded), newest first, with embeddings
// when asked (summaries pick the most central ones).
MATCH (t:Thought)-[:BELONGS_TO]->(tp:Topic {id: $topicId})
WHERE tp.namespace = $namespace AND {{ current(t) }}
RETURN {{ thought_fields(t) }},
       CASE WHEN $withEmbeddings THEN t.embedding ELSE null END AS embedding
ORDER BY createdAt DESC, id DESC
LIMIT $limit
