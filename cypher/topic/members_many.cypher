// The current thoughts of each of $topicIds (at most $limit each, newest first), with
// embeddings when asked: what a consolidation run summarises, many topics per statement.
// One pattern from the topic, filtered after the WITH: a WHERE on the thought inside
// the MATCH lets FalkorDB's planner start from every thought of the namespace (about
// 100x slower at 10,000 thoughts).
UNWIND $topicIds AS topicId
MATCH (tp:Topic {id: topicId})<-[:BELONGS_TO]-(t:Thought)
WITH topicId, tp, t
WHERE tp.namespace = $namespace AND {{ current(t) }}
WITH topicId, t
ORDER BY t.createdAt DESC, t.id DESC
WITH topicId, collect(t)[0..$limit] AS members
UNWIND members AS t
RETURN topicId AS memberOf, {{ thought_fields(t) }},
       CASE WHEN $withEmbeddings THEN t.{{ space(embedding) }} ELSE null END AS embedding
