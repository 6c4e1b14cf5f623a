// Indexes that cannot answer yet (POPULATING, or FAILED): the store is not ready while any
// is listed.
SHOW INDEXES YIELD name, state
WHERE state <> 'ONLINE'
RETURN name, state
