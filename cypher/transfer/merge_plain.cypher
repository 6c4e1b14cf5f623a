// Restores a batch of nodes of one label that carry no vector (import). MERGE on the
// exported id, properties set only on creation: a second import of the same file changes
// nothing.
//@ merge_checkpoints: label=Checkpoint
//@ merge_consent_requests: label=ConsentRequest
//@ merge_contradictions: label=Contradiction
//@ merge_events: label=ChangeEvent
//@ merge_pair_checks: label=PairCheck
//@ merge_proposals: label=MergeProposal
//@ merge_runs: label=ConsolidationRun
UNWIND $rows AS row
MERGE (n:{{ label }} {id: row.id})
ON CREATE SET n += row.properties
RETURN count(n) AS merged
