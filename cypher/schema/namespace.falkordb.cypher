// One namespace's graph in embedded FalkorDB, created before its first write, after its
// vector indexes (schema/namespace_vectors). "already indexed" errors mean the index
// exists (success); the adapter adds the unique constraints after these exact-match indexes.
CREATE INDEX FOR (t:Thought) ON (t.id);
CREATE INDEX FOR (t:Thought) ON (t.namespace);
CREATE INDEX FOR (t:Thought) ON (t.createdAt);
// A search hit's session neighbours (expansion.session_context): the engine combines it
// with the createdAt range, so a read scans one session, not every turn written that hour.
CREATE INDEX FOR (t:Thought) ON (t.sessionId);
// Listings by kind and by tag (thought.list_of_kind, thought.list_tagged); a range
// index on a list property answers membership ($tag IN t.tags).
CREATE INDEX FOR (t:Thought) ON (t.kind);
CREATE INDEX FOR (t:Thought) ON (t.tags);
CREATE INDEX FOR (e:ChangeEvent) ON (e.id);
CREATE INDEX FOR (e:ChangeEvent) ON (e.namespace);
CREATE INDEX FOR (e:ChangeEvent) ON (e.subjectId);
// The change log read by revision (changesSince, a context's delta and recent thoughts).
CREATE INDEX FOR (e:ChangeEvent) ON (e.revision);
CREATE INDEX FOR (l:ChangeLog) ON (l.namespace);
// The nodes that carry the thoughts' vectors (schema/namespace_vectors), by thought id.
CREATE INDEX FOR (v:{{ space(ThoughtVector) }}) ON (v.id);
CREATE INDEX FOR (t:Thought) ON (t.state);
CREATE INDEX FOR (tp:Topic) ON (tp.id);
CREATE INDEX FOR (c:Contradiction) ON (c.id);
CREATE INDEX FOR (p:MergeProposal) ON (p.id);
CREATE INDEX FOR (r:ConsentRequest) ON (r.id);
CREATE INDEX FOR (q:ExtractionQuota) ON (q.id);
// A user's checkpoints in a thread (checkpoints.list).
CREATE INDEX FOR (c:Checkpoint) ON (c.id);
CREATE INDEX FOR (c:Checkpoint) ON (c.threadId);
// A person field's current values (consent.field_values).
CREATE INDEX FOR (t:Thought) ON (t.about);
// The merges of a consolidation run (consolidation.merged_by_runs).
CREATE INDEX FOR (t:Thought) ON (t.runId);
// A person's own private thoughts (insights.recent).
CREATE INDEX FOR (t:Thought) ON (t.ownerId);
CREATE INDEX FOR (c:Contradiction) ON (c.status);
CREATE INDEX FOR (ep:Episode) ON (ep.id);
CREATE INDEX FOR (run:ConsolidationRun) ON (run.id);
CREATE INDEX FOR (p:PairCheck) ON (p.id);
CREATE INDEX FOR (e:OpsEvent) ON (e.id);
CREATE INDEX FOR (e:OpsEvent) ON (e.at);
// Last, so that once it exists every index of the namespace does: the vector indexes are
// created before this statement (schema.namespace_searchable).
CREATE FULLTEXT INDEX FOR (t:Thought) ON (t.content);
