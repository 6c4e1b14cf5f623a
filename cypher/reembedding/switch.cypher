// The switch: one write makes the filled space the active one and retires the old one.
// Every process reads the record again within a second and pins new requests to it.
MATCH (m:SchemaMeta {key: 'schema'})
WHERE m.nextSlot = $slot
SET m.retiredSlot = coalesce(m.activeSlot, 0), m.activeSlot = m.nextSlot,
    m.embedder = m.nextEmbedder, m.embeddingDimension = m.nextDimension,
    m.activeSettings = m.nextSettings, m.switchedAt = $now
SET m.nextSlot = null, m.nextEmbedder = null, m.nextDimension = null, m.nextSettings = null,
    m.reembedStartedAt = null
RETURN m.activeSlot AS activeSlot
