// Upgrade to schema 3: every thought's vector on an indexed node of its own (see
// FALKORDB_VECTOR_NODES in app/store/vector_macros.py), for thoughts written before. Idempotent.
MATCH (t:Thought)
WHERE t.{{ space(embedding) }} IS NOT NULL
OPTIONAL MATCH (existing:{{ space(ThoughtVector) }} {id: t.id})
WITH t, existing
WHERE existing IS NULL
CREATE (:{{ space(ThoughtVector) }} {id: t.id, {{ space(embedding) }}: t.{{ space(embedding) }}})
RETURN count(t) AS created
