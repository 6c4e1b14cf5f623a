// Every index of one graph and whether it can answer yet: OPERATIONAL, or UNDER
// CONSTRUCTION while FalkorDB builds it (or rebuilds it after loading its log).
CALL db.indexes() YIELD label, status
RETURN label, status
