// A topic's new summary, and its name as its members now read (null keeps the name):
// its unsummarised count goes back to zero.
MATCH (tp:Topic {id: $topicId})
WHERE tp.namespace = $namespace
SET tp.summary = $summary, tp.summarisedAt = $at, tp.updatedAt = $at,
    tp.unsummarisedCount = 0, tp.summarisedBy = $summariser, tp.name = coalesce($name, tp.name)
WITH tp
{{ append_change(tp) }}
RETURN tp.id AS id, log.revision AS revision
