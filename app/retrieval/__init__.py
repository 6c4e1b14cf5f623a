"""Hybrid retrieval, in pure parts: full-text query escaping, rank fusion, retention
tiers and the final scoring. The store work is in app/store/repositories/retrieval.py and
cypher/search/; app/services/search.py puts them together."""
