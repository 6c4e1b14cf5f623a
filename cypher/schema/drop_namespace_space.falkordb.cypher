// A retired vector space's other index in one namespace's graph (after a re-embed switched
// away from it; app/ports/vector_slots.py), dropped after its vector indexes
// (schema/drop_namespace_vectors). "no such index" means dropped already.
DROP INDEX FOR (v:{{ space(ThoughtVector) }}) ON (v.id);
