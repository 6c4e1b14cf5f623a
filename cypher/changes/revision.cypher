OPTIONAL MATCH (log:ChangeLog {namespace: $namespace})
RETURN coalesce(log.revision, 0) AS revision
