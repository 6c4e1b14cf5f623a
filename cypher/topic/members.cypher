// A topic's current thoughts (active, not superseded), newest first, with embeddings
// when asked (summaries pick the most central ones). The match starts from the topic and
// follows its BELONGS_TO edges in: starting from the thoughts reads every thought of the
// namespace (~6x slower on FalkorDB at 10,000 thoughts).
MATCH (tp:Topic {id: $topicId})
WHERE tp.namespace = $namespace
MATCH (tp)<-[:BELONGS_TO]-(t:Thought)
WHERE {{ current(t) }}
RETURN {{ thought_fields(t) }},
       CASE WHEN $withEmbeddings THEN t.embedding ELSE null END AS embedding
ORDER BY createdAt DESC, id DESC
LIMIT $limit
