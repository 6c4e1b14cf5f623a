// Every namespace that has been written to (each has a change log): scheduled
// maintenance visits them in turn. The predicate lets the planner read the namespace
// index instead of scanning the label. FalkorDB lists its namespace graphs instead.
MATCH (l:ChangeLog)
WHERE l.namespace IS NOT NULL
RETURN l.namespace AS namespace
ORDER BY namespace
