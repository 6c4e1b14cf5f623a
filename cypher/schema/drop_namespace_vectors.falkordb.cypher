// One namespace's vector indexes in one space: before a clean stop (they are built again
// at the next start, see schema/namespace_vectors), and when a re-embed retires the space
// (with schema/drop_namespace_space). "no such index" means dropped already.
DROP VECTOR INDEX FOR (v:{{ space(ThoughtVector) }}) ON (v.{{ space(embedding) }});
DROP VECTOR INDEX FOR ()-[r:REFINES]-() ON (r.{{ space(reasonEmbedding) }});
DROP VECTOR INDEX FOR ()-[r:CONSOLIDATES]-() ON (r.{{ space(reasonEmbedding) }});
DROP VECTOR INDEX FOR ()-[r:SUPERSEDES]-() ON (r.{{ space(reasonEmbedding) }});
DROP VECTOR INDEX FOR (ep:Episode) ON (ep.{{ space(embedding) }});
