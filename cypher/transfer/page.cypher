// A page of the namespace's nodes of one label for export, in id order after $afterId.
// Every property is exported as stored (a map of scalars and lists): an export must carry
// what the store holds, including properties added after this statement was written.
//@ page_thoughts: label=Thought
//@ page_topics: label=Topic
//@ page_contradictions: label=Contradiction
//@ page_episodes: label=Episode
//@ page_events: label=ChangeEvent
//@ page_runs: label=ConsolidationRun
//@ page_pair_checks: label=PairCheck
//@ page_proposals: label=MergeProposal
//@ page_consent_requests: label=ConsentRequest
MATCH (n:{{ label }})
WHERE n.namespace = $namespace AND n.id > $afterId
RETURN n.id AS id, properties(n) AS properties
ORDER BY n.id
LIMIT $limit
