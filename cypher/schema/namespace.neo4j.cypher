// A namespace's own vector index in Neo4j, created before its first write: its thoughts
// carry the label Ns_<hash of the namespace> (see the namespace_label macro), and this
// index covers only that label, so a search's latency and completeness depend on the
// namespace's own size. Schema commands take no label parameter: the adapter fills the
// slot below with the checked label (app.store.cypher.fill_namespace_label).
// Quantization is off: it made scores inexact (an opposite vector scored 0.5, not 0).
CREATE VECTOR INDEX $indexName IF NOT EXISTS
FOR (t:__NAMESPACE_LABEL__) ON (t.{{ space(embedding) }})
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}};
CALL db.awaitIndex($indexName, $timeoutSeconds);
