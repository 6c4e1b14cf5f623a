// Restores the namespace's change-log counter (import): never moves it back, so a second
// import, or one into a namespace that went on changing, keeps the revisions it holds.
UNWIND $rows AS row
MERGE (log:ChangeLog {namespace: $namespace})
ON CREATE SET log.revision = row.revision
SET log.revision = CASE WHEN log.revision < row.revision THEN row.revision ELSE log.revision END
RETURN log.revision AS revision
