"""Hybrid retrieval, in pure parts: full-text query escaping, rank fusion, retention
tiers, the final scoring, and the graph expansion step (expansion.py). The store work is in
app/store/repositories/retrieval.py, expansion.py and cypher/search/, cypher/expansion/;
app/services/search.py puts them together."""
