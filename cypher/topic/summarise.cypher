// A topic's new summary: its unsummarised count goes back to zero.
MATCH (tp:Topic {id: $topicId})
WHERE tp.namespace = $namespace
SET tp.summary = $summary, tp.summarisedAt = $at, tp.updatedAt = $at,
    tp.unsummarisedCount = 0, tp.summarisedBy = $summariser
WITH tp
{{ append_change(tp) }}
RETURN tp.id AS id, log.revision AS revision
