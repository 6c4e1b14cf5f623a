MATCH (run:ConsolidationRun)
WHERE run.id IN $ids AND run.namespace = $namespace
RETURN {{ run_fields(run) }}
