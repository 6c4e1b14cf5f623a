// A worker takes the run (again, after a crash: attempts counts the tries). No row when
// it has finished already: a redelivered task then does nothing.
MATCH (run:ConsolidationRun {id: $id})
WHERE run.namespace = $namespace AND run.status IN ['queued', 'running']
SET run.status = 'running', run.startedAt = coalesce(run.startedAt, $at),
    run.attempts = run.attempts + 1, run.error = null
RETURN {{ run_fields(run) }}
