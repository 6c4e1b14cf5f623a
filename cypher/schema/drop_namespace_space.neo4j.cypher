// A retired vector space's index of one namespace (after a re-embed switched away from
// it; app/ports/vector_slots.py).
DROP INDEX $indexName IF EXISTS;
