// Restores a batch of PART_OF relationships, Thought to Episode (import): MERGE
// between the nodes the ids name, properties set only on creation, so a second
// import changes nothing.
UNWIND $rows AS row
MATCH (a:Thought {id: row.fromId})
MATCH (b:Episode {id: row.toId})
MERGE (a)-[r:PART_OF]->(b)
ON CREATE SET r += row.properties
RETURN count(r) AS linked
