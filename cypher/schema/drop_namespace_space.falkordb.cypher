// A retired vector space's indexes in one namespace's graph (after a re-embed switched
// away from it; app/ports/vector_slots.py). "no such index" means dropped already.
DROP VECTOR INDEX FOR (v:{{ space(ThoughtVector) }}) ON (v.{{ space(embedding) }});
DROP INDEX FOR (v:{{ space(ThoughtVector) }}) ON (v.id);
DROP VECTOR INDEX FOR ()-[r:REFINES]-() ON (r.{{ space(reasonEmbedding) }});
DROP VECTOR INDEX FOR ()-[r:CONSOLIDATES]-() ON (r.{{ space(reasonEmbedding) }});
DROP VECTOR INDEX FOR ()-[r:SUPERSEDES]-() ON (r.{{ space(reasonEmbedding) }});
DROP VECTOR INDEX FOR (ep:Episode) ON (ep.{{ space(embedding) }});
