// Topics with enough unsummarised thoughts to be worth a summary (lazy consolidation).
MATCH (tp:Topic)
WHERE tp.namespace = $namespace AND tp.unsummarisedCount >= $minUnsummarised
RETURN {{ topic_fields(tp) }}
ORDER BY unsummarisedCount DESC, id
LIMIT $limit
