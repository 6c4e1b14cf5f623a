// A namespace's topics, most recently updated first.
MATCH (tp:Topic)
WHERE tp.namespace = $namespace
RETURN {{ topic_fields(tp) }}
ORDER BY updatedAt DESC, id DESC
LIMIT $limit
