// All thoughts in every namespace: an O(1) count on both engines.
MATCH (t:Thought)
RETURN count(t) AS total
