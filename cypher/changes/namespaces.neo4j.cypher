// Every namespace that has been written to (each has a change log): scheduled
// maintenance visits them in turn. FalkorDB lists its namespace graphs instead.
MATCH (l:ChangeLog)
RETURN l.namespace AS namespace
ORDER BY namespace
