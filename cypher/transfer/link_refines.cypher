// Restores a batch of REFINES relationships, Thought to Thought (import): MERGE
// between the nodes the ids name, properties set only on creation, so a second
// import changes nothing.
UNWIND $rows AS row
MATCH (a:Thought {id: row.fromId})
MATCH (b:Thought {id: row.toId})
MERGE (a)-[r:REFINES]->(b)
ON CREATE SET r += row.properties
FOREACH (_ IN CASE WHEN r.reasonEmbedding IS NULL AND row.vector IS NOT NULL THEN [1] ELSE [] END |
  SET r.reasonEmbedding = {{ vector(row.vector) }})
RETURN count(r) AS linked
