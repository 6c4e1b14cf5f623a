// Restores a batch of CONCERNS relationships, ChangeEvent to Topic (import): MERGE
// between the nodes the ids name, properties set only on creation, so a second
// import changes nothing.
UNWIND $rows AS row
MATCH (a:ChangeEvent {id: row.fromId})
MATCH (b:Topic {id: row.toId})
MERGE (a)-[r:CONCERNS]->(b)
ON CREATE SET r += row.properties
RETURN count(r) AS linked
