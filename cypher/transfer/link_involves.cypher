// Restores a batch of INVOLVES relationships, Contradiction to Thought (import): MERGE
// between the nodes the ids name, properties set only on creation, so a second
// import changes nothing.
UNWIND $rows AS row
MATCH (a:Contradiction {id: row.fromId})
MATCH (b:Thought {id: row.toId})
MERGE (a)-[r:INVOLVES]->(b)
ON CREATE SET r += row.properties
RETURN count(r) AS linked
