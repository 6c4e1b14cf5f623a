// The retired space is gone (indexes dropped, vectors cleared): the record forgets it.
MATCH (m:SchemaMeta {key: 'schema'})
WHERE m.retiredSlot = $slot
SET m.retiredSlot = null
RETURN coalesce(m.activeSlot, 0) AS activeSlot
