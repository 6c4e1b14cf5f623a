// A consolidation run, queued: the worker that takes it marks it running. Runs are the
// operational log of maintenance; what a run changes is in the change log.
MERGE (run:ConsolidationRun {id: $id})
ON CREATE SET run.namespace = $namespace, run.status = 'queued', run.dryRun = $dryRun,
              run.trigger = $trigger, run.requestedAt = $at, run.attempts = 0,
              run.counts = '{}', run.usage = '{}'
RETURN {{ run_fields(run) }}
