// Restores a batch of BELONGS_TO relationships, Thought to Topic (import): MERGE
// between the nodes the ids name, properties set only on creation, so a second
// import changes nothing.
UNWIND $rows AS row
MATCH (a:Thought {id: row.fromId})
MATCH (b:Topic {id: row.toId})
MERGE (a)-[r:BELONGS_TO]->(b)
ON CREATE SET r += row.properties
RETURN count(r) AS linked
