// Loads many original thoughts at once (benchmarks), each with its event. A row whose id
// is stored already is left out, so a batch run again (after a lost connection) writes
// nothing twice. The revision counter advances once, by the rows written, under the
// write lock.
UNWIND $rows AS candidate
OPTIONAL MATCH (existing:Thought {id: candidate.id})
WITH candidate, existing
WHERE existing IS NULL
WITH collect(candidate) AS rows
MERGE (log:ChangeLog {namespace: $namespace})
ON CREATE SET log.revision = 0
SET log.lock = true
WITH log, log.revision AS base, rows
SET log.revision = base + size(rows)
WITH base, rows
UNWIND range(0, size(rows) - 1) AS i
WITH base, i, rows[i] AS row
CREATE (t:Thought:Original {
  id: row.id, namespace: $namespace, type: 'original', content: row.content,
  agentId: row.agentId, agentName: row.agentName, context: null, sessionId: null,
  tags: row.tags, pheromoneWeight: 1.0, createdAt: row.createdAt, sourceIds: [],
  revision: base + i + 1, kind: 'fact', salience: 0.5, importance: 3, pinned: false,
  accessCount: 0, state: 'active',
  {{ space(embedding) }}: {{ vector(row.embedding) }}
})
{{ namespace_label(t) }}
{{ thought_vector(t) }}
CREATE (e:ChangeEvent {
  id: row.id + ':created', namespace: $namespace, revision: base + i + 1, kind: 'created',
  subjectKind: 'thought', subjectId: row.id, sourceIds: [], actorId: row.agentId, actorName: row.agentName,
  at: row.createdAt
})
CREATE (e)-[:CONCERNS]->(t)
RETURN count(t) AS created
