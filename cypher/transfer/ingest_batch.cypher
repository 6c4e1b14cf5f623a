// Writes a batch of original thoughts (contributeMany, `thoughtgraph import --text`) with
// their change events in one statement. Ids already stored are skipped, so a retried
// batch writes nothing twice; the counter advances by the number written, under the
// write lock taken before it is read.
MERGE (log:ChangeLog {namespace: $namespace})
ON CREATE SET log.revision = 0
SET log.lock = true
WITH log
UNWIND $rows AS row
OPTIONAL MATCH (existing:Thought {id: row.id})
WITH log, collect(CASE WHEN existing IS NULL THEN row END) AS fresh
WITH log, fresh, log.revision AS base
SET log.revision = base + size(fresh)
WITH base, fresh
UNWIND range(0, size(fresh) - 1) AS i
WITH base, i, fresh[i] AS row
CREATE (t:Thought:Original {
  id: row.id, namespace: $namespace, type: 'original', content: row.content,
  agentId: row.agentId, agentName: row.agentName, context: row.context,
  sessionId: row.sessionId, tags: row.tags, pheromoneWeight: row.pheromoneWeight,
  createdAt: row.createdAt, sourceIds: [], revision: base + i + 1, kind: row.kind,
  salience: row.salience, importance: row.importance, pinned: row.pinned,
  category: row.category, accessCount: 0, state: 'active', validFrom: row.validFrom,
  validTo: row.validTo, scope: row.scope, ownerId: row.ownerId, about: row.about,
  {{ space(embedding) }}: {{ vector(row.embedding) }}
})
{{ namespace_label(t) }}
{{ thought_vector(t) }}
CREATE (ev:ChangeEvent {
  id: row.id + ':created', namespace: $namespace, revision: base + i + 1, kind: 'created',
  subjectKind: 'thought', subjectId: row.id, sourceIds: [], actorId: row.agentId,
  actorName: row.agentName, actorKeyId: row.actorKeyId, at: row.createdAt
})
CREATE (ev)-[:CONCERNS]->(t)
RETURN row.id AS id, base + i + 1 AS revision
