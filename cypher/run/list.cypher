// A namespace's consolidation runs, newest first.
MATCH (run:ConsolidationRun)
WHERE run.namespace = $namespace
RETURN {{ run_fields(run) }}
ORDER BY requestedAt DESC, id DESC
LIMIT $limit
