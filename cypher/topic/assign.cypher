// Thoughts join a topic (BELONGS_TO), those in no topic yet; the topic counts them as
// unsummarised, takes its new centroid, and one event names them. No row when none joined.
// The row reports the topic as stored now (a run keeps its topics in memory from it).
MATCH (tp:Topic {id: $topicId})
WHERE tp.namespace = $namespace
UNWIND $thoughtIds AS thoughtId
MATCH (t:Thought {id: thoughtId})
WHERE t.namespace = $namespace AND t.topicId IS NULL
CREATE (t)-[:BELONGS_TO {namespace: $namespace, at: $at}]->(tp)
SET t.topicId = tp.id
WITH tp, collect(t.id) AS joined
WHERE size(joined) > 0
SET tp.thoughtCount = tp.thoughtCount + size(joined),
    tp.unsummarisedCount = tp.unsummarisedCount + size(joined),
    tp.updatedAt = $at, tp.embedding = {{ vector($centroid) }}
WITH tp, joined
{{ append_change(tp) }}
SET ev.sourceIds = joined
RETURN size(joined) AS assigned, log.revision AS revision, tp.id AS id, tp.name AS name,
       tp.embedding AS embedding, tp.thoughtCount AS thoughtCount
