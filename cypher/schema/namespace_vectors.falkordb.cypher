// One namespace's vector indexes in embedded FalkorDB: created with the namespace (before
// schema/namespace), and again when the service starts after a clean stop, which drops
// them (schema/drop_namespace_vectors) so that the engine loads in seconds instead of
// rebuilding them while it answers nothing; they then build while the service serves.
// The thoughts' own index is created last: once it exists, every one above does
// (schema.namespace_searchable). "already indexed" means the index exists (success).
CREATE VECTOR INDEX FOR ()-[r:REFINES]-() ON (r.{{ space(reasonEmbedding) }})
OPTIONS {dimension: $dimension, similarityFunction: 'cosine'};
CREATE VECTOR INDEX FOR ()-[r:CONSOLIDATES]-() ON (r.{{ space(reasonEmbedding) }})
OPTIONS {dimension: $dimension, similarityFunction: 'cosine'};
CREATE VECTOR INDEX FOR ()-[r:SUPERSEDES]-() ON (r.{{ space(reasonEmbedding) }})
OPTIONS {dimension: $dimension, similarityFunction: 'cosine'};
CREATE VECTOR INDEX FOR (ep:Episode) ON (ep.{{ space(embedding) }})
OPTIONS {dimension: $dimension, similarityFunction: 'cosine'};
// A thought's vector is indexed on a node of its own (see FALKORDB_VECTOR_NODES in
// app/store/vector_macros.py: SETs on an indexed node leave stale copies in the index).
CREATE VECTOR INDEX FOR (v:{{ space(ThoughtVector) }}) ON (v.{{ space(embedding) }})
OPTIONS {dimension: $dimension, similarityFunction: 'cosine'};
