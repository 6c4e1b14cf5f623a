// For each thought, the thoughts that SUPERSEDE it, newest first: search marks its hits.
MATCH (newer:Thought)-[s:SUPERSEDES]->(older:Thought)
WHERE older.id IN $ids AND older.namespace = $namespace
RETURN older.id AS thoughtId, newer.id AS supersederId, s.createdAt AS at
ORDER BY at DESC
