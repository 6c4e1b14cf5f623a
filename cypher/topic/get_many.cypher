MATCH (tp:Topic)
WHERE tp.id IN $ids AND tp.namespace = $namespace
RETURN {{ topic_fields(tp) }}
