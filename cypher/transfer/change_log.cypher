// The namespace's change-log counter (export): the revision its next change follows.
MATCH (log:ChangeLog {namespace: $namespace})
RETURN log.revision AS revision
