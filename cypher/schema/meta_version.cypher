// After an in-place upgrade of the layout: the store now has this schema version.
MATCH (m:SchemaMeta {key: 'schema'})
SET m.schemaVersion = $schemaVersion
RETURN m.schemaVersion AS schemaVersion
