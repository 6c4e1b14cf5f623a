// Restores a batch of relationships of one type (import): MERGE between the nodes the
// ids name, properties set only on creation, so a second import changes nothing.
//@ link_belongs_to: source=Thought, type=BELONGS_TO, target=Topic
//@ link_concerns_checkpoint: source=ChangeEvent, type=CONCERNS, target=Checkpoint
//@ link_concerns_consent_request: source=ChangeEvent, type=CONCERNS, target=ConsentRequest
//@ link_concerns_contradiction: source=ChangeEvent, type=CONCERNS, target=Contradiction
//@ link_concerns_episode: source=ChangeEvent, type=CONCERNS, target=Episode
//@ link_concerns_proposal: source=ChangeEvent, type=CONCERNS, target=MergeProposal
//@ link_concerns_run: source=ChangeEvent, type=CONCERNS, target=ConsolidationRun
//@ link_concerns_thought: source=ChangeEvent, type=CONCERNS, target=Thought
//@ link_concerns_topic: source=ChangeEvent, type=CONCERNS, target=Topic
//@ link_involves: source=Contradiction, type=INVOLVES, target=Thought
//@ link_part_of: source=Thought, type=PART_OF, target=Episode
//@ link_proposes: source=MergeProposal, type=PROPOSES, target=Thought
//@ link_related_to: source=Thought, type=RELATED_TO, target=Thought
UNWIND $rows AS row
MATCH (a:{{ source }} {id: row.fromId})
MATCH (b:{{ target }} {id: row.toId})
MERGE (a)-[r:{{ type }}]->(b)
ON CREATE SET r += row.properties
RETURN count(r) AS linked
