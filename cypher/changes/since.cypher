// The namespace's change log after a revision, oldest first: for agents catching up.
MATCH (e:ChangeEvent)
WHERE e.namespace = $namespace AND e.revision > $afterRevision
RETURN e.id AS id, e.namespace AS namespace, e.revision AS revision, e.kind AS kind,
       e.thoughtId AS thoughtId, e.sourceIds AS sourceIds, e.actorId AS actorId,
       e.actorName AS actorName, e.at AS at, e.actorKeyId AS actorKeyId
ORDER BY revision
LIMIT $limit
