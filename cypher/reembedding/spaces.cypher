// The store's vector spaces (app/ports/vector_slots.py): the active one and, while a
// re-embed runs, the next one; after a switch, the retired slot until it is dropped.
OPTIONAL MATCH (m:SchemaMeta {key: 'schema'})
RETURN coalesce(m.activeSlot, 0) AS activeSlot, m.embedder AS embedder,
       m.embeddingDimension AS dimension, m.activeSettings AS activeSettings,
       m.nextSlot AS nextSlot, m.nextEmbedder AS nextEmbedder,
       m.nextDimension AS nextDimension, m.nextSettings AS nextSettings,
       m.retiredSlot AS retiredSlot, m.reembedStartedAt AS startedAt,
       m.switchedAt AS switchedAt
