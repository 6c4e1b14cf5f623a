"""Hybrid retrieval, in pure parts: stopwords, rank fusion, retention tiers, the final
scoring, and the graph expansion step (expansion.py). The store work is in
app/store/repositories/retrieval.py, expansion.py, app/store/fulltext.py (each engine's
full-text syntax) and cypher/search/, cypher/expansion/;
app/services/search.py puts them together."""
