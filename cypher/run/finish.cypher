// The run's outcome: status, counts and usage (JSON text), error if it failed.
MATCH (run:ConsolidationRun {id: $id})
WHERE run.namespace = $namespace
SET run.status = $status, run.finishedAt = $at, run.counts = $counts, run.usage = $usage,
    run.error = $error
RETURN {{ run_fields(run) }}
