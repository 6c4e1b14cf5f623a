// Operational events: one compact node per operation, written in
// batches by the service's recorder. An OpsEvent is not knowledge: no vector index, no
// change event, and no thought query matches its label. MERGE on the event's own id, so
// a retried batch writes each event once.
UNWIND $events AS event
MERGE (e:OpsEvent {id: event.id})
ON CREATE SET e.namespace = $namespace, e.node = event.node, e.op = event.op,
              e.status = event.status, e.memoryId = event.memoryId,
              e.category = event.category, e.similarity = event.similarity, e.at = event.at
RETURN count(e) AS recorded
