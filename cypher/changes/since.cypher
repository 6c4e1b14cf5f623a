// The namespace's change log after a revision, oldest first: for agents catching up.
MATCH (e:ChangeEvent)
WHERE e.namespace = $namespace AND e.revision > $afterRevision
RETURN {{ change_fields(e) }}
ORDER BY revision
LIMIT $limit
