// Upgrade to schema 3: every thought's vector on an indexed node of its own (see
// FALKORDB_VECTOR_NODES in app/store/cypher.py), for thoughts written before. Idempotent.
MATCH (t:Thought)
WHERE t.embedding IS NOT NULL
OPTIONAL MATCH (existing:ThoughtVector {id: t.id})
WITH t, existing
WHERE existing IS NULL
CREATE (:ThoughtVector {id: t.id, embedding: t.embedding})
RETURN count(t) AS created
