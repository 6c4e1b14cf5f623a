// A new topic, named from the thought that started it; its id comes from its name, so a
// retried run finds it. No row when it exists.
OPTIONAL MATCH (existing:Topic {id: $id})
WITH existing
WHERE existing IS NULL
CREATE (tp:Topic {
  id: $id, namespace: $namespace, name: $name, {{ space(embedding) }}: {{ vector($embedding) }},
  thoughtCount: 0, unsummarisedCount: 0, createdAt: $at, updatedAt: $at
})
WITH tp
{{ append_change(tp) }}
RETURN tp.id AS id, log.revision AS revision
