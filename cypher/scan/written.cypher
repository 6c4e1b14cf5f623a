// The thoughts written after the scan cursor (up to $head, at or after $since), oldest
// first: the ids of their creating change events, whatever else the log holds between.
MATCH (e:ChangeEvent)
WHERE e.namespace = $namespace AND e.revision > $afterRevision AND e.revision <= $head
  AND e.kind IN $kinds AND e.at >= $since
RETURN e.revision AS revision, e.subjectId AS thoughtId
ORDER BY revision
LIMIT $limit
