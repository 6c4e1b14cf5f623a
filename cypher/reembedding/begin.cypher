// Records the space a re-embed fills: refused (no row) while another embedder's re-embed
// is under way or a retired space is still being dropped; a repeat resumes it.
MATCH (m:SchemaMeta {key: 'schema'})
WHERE m.retiredSlot IS NULL AND coalesce(m.activeSlot, 0) <> $slot
  AND (m.nextSlot IS NULL OR (m.nextSlot = $slot AND m.nextEmbedder = $embedder))
SET m.nextSlot = $slot, m.nextEmbedder = $embedder, m.nextDimension = $dimension,
    m.nextSettings = $settings, m.reembedStartedAt = coalesce(m.reembedStartedAt, $now)
RETURN m.nextSlot AS nextSlot
