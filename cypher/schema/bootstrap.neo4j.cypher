// Idempotent schema for Neo4j 5.26+ / 2025.x. $dimension comes from the embedder.
// Thought embeddings are indexed per namespace (schema/namespace); the reason indexes on
// edges are shared: they serve Neo4j Browser's "edges by meaning" across namespaces.
// Quantization is off: it made scores inexact (an opposite vector scored 0.5, not 0).
CREATE CONSTRAINT thought_id_unique IF NOT EXISTS FOR (t:Thought) REQUIRE t.id IS UNIQUE;
CREATE CONSTRAINT change_event_id_unique IF NOT EXISTS FOR (e:ChangeEvent) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT change_log_namespace_unique IF NOT EXISTS FOR (l:ChangeLog) REQUIRE l.namespace IS UNIQUE;
CREATE CONSTRAINT schema_meta_key_unique IF NOT EXISTS FOR (m:SchemaMeta) REQUIRE m.key IS UNIQUE;
CREATE CONSTRAINT topic_id_unique IF NOT EXISTS FOR (tp:Topic) REQUIRE tp.id IS UNIQUE;
CREATE CONSTRAINT contradiction_id_unique IF NOT EXISTS FOR (c:Contradiction) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT episode_id_unique IF NOT EXISTS FOR (ep:Episode) REQUIRE ep.id IS UNIQUE;
CREATE CONSTRAINT consolidation_run_id_unique IF NOT EXISTS FOR (run:ConsolidationRun) REQUIRE run.id IS UNIQUE;
CREATE CONSTRAINT pair_check_id_unique IF NOT EXISTS FOR (p:PairCheck) REQUIRE p.id IS UNIQUE;
CREATE CONSTRAINT merge_proposal_id_unique IF NOT EXISTS FOR (p:MergeProposal) REQUIRE p.id IS UNIQUE;
CREATE CONSTRAINT consent_request_id_unique IF NOT EXISTS FOR (r:ConsentRequest) REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT extraction_quota_id_unique IF NOT EXISTS FOR (q:ExtractionQuota) REQUIRE q.id IS UNIQUE;
CREATE CONSTRAINT checkpoint_id_unique IF NOT EXISTS FOR (c:Checkpoint) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT ops_event_id_unique IF NOT EXISTS FOR (e:OpsEvent) REQUIRE e.id IS UNIQUE;
CREATE INDEX topic_namespace IF NOT EXISTS FOR (tp:Topic) ON (tp.namespace);
CREATE INDEX contradiction_ns IF NOT EXISTS FOR (c:Contradiction) ON (c.namespace);
CREATE INDEX merge_proposal_ns IF NOT EXISTS FOR (p:MergeProposal) ON (p.namespace);
CREATE INDEX consent_request_ns IF NOT EXISTS FOR (r:ConsentRequest) ON (r.namespace);
CREATE INDEX thought_namespace_about IF NOT EXISTS FOR (t:Thought) ON (t.namespace, t.about);
CREATE INDEX thought_namespace_owner IF NOT EXISTS FOR (t:Thought) ON (t.namespace, t.ownerId);
CREATE INDEX episode_ns IF NOT EXISTS FOR (ep:Episode) ON (ep.namespace);
CREATE INDEX consolidation_run_ns IF NOT EXISTS FOR (run:ConsolidationRun) ON (run.namespace);
CREATE INDEX change_event_subject IF NOT EXISTS FOR (e:ChangeEvent) ON (e.subjectId);
CREATE INDEX thought_namespace_state IF NOT EXISTS FOR (t:Thought) ON (t.namespace, t.state);
CREATE INDEX thought_namespace IF NOT EXISTS FOR (t:Thought) ON (t.namespace);
CREATE INDEX thought_namespace_created IF NOT EXISTS FOR (t:Thought) ON (t.namespace, t.createdAt);
// A search hit's session neighbours (expansion.session_context).
CREATE INDEX thought_namespace_session IF NOT EXISTS FOR (t:Thought) ON (t.namespace, t.sessionId);
CREATE INDEX thought_namespace_kind IF NOT EXISTS FOR (t:Thought) ON (t.namespace, t.kind);
CREATE INDEX thought_namespace_run IF NOT EXISTS FOR (t:Thought) ON (t.namespace, t.runId);
CREATE INDEX change_event_namespace_revision IF NOT EXISTS FOR (e:ChangeEvent) ON (e.namespace, e.revision);
CREATE INDEX checkpoint_thread IF NOT EXISTS FOR (c:Checkpoint) ON (c.namespace, c.user, c.threadId, c.revision);
CREATE INDEX ops_event_namespace_at IF NOT EXISTS FOR (e:OpsEvent) ON (e.namespace, e.at);
CREATE VECTOR INDEX {{ space(refines_reason_embedding) }} IF NOT EXISTS
FOR ()-[r:REFINES]-() ON (r.{{ space(reasonEmbedding) }})
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX {{ space(consolidates_reason_embedding) }} IF NOT EXISTS
FOR ()-[r:CONSOLIDATES]-() ON (r.{{ space(reasonEmbedding) }})
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX {{ space(supersedes_reason_embedding) }} IF NOT EXISTS
FOR ()-[r:SUPERSEDES]-() ON (r.{{ space(reasonEmbedding) }})
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX {{ space(topic_embedding) }} IF NOT EXISTS
FOR (tp:Topic) ON (tp.{{ space(embedding) }})
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX {{ space(episode_embedding) }} IF NOT EXISTS
FOR (ep:Episode) ON (ep.{{ space(embedding) }})
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}};
CREATE FULLTEXT INDEX thought_content IF NOT EXISTS FOR (t:Thought) ON EACH [t.content];
// Listings by tag (thought.list_tagged): each tag of the list one token, matched whole.
CREATE FULLTEXT INDEX thought_tags IF NOT EXISTS FOR (t:Thought) ON EACH [t.tags]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword'}};
