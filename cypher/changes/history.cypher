// Events about a subject of any kind (topic, contradiction, episode, thought), by the
// subject id every event carries; changes/concerning adds those that concern a thought
// without being about it (a refinement of it, a contradiction over it).
MATCH (e:ChangeEvent)
WHERE e.subjectId = $subjectId AND e.namespace = $namespace
RETURN {{ change_fields(e) }}
ORDER BY revision
LIMIT $limit
