// Restores a batch of lineage relationships of one type, thought to thought (import):
// MERGE between the nodes the ids name, properties set only on creation and the reason's
// embedding only where there is none, so a second import changes nothing.
//@ link_refines: type=REFINES
//@ link_consolidates: type=CONSOLIDATES
//@ link_supersedes: type=SUPERSEDES
UNWIND $rows AS row
MATCH (a:Thought {id: row.fromId})
MATCH (b:Thought {id: row.toId})
MERGE (a)-[r:{{ type }}]->(b)
ON CREATE SET r += row.properties
FOREACH (_ IN CASE WHEN r.{{ space(reasonEmbedding) }} IS NULL AND row.vector IS NOT NULL THEN [1] ELSE [] END |
  SET r.{{ space(reasonEmbedding) }} = {{ vector(row.vector) }})
RETURN count(r) AS linked
