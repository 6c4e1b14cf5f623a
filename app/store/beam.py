"""How many candidates a vector query asks the index for.

HNSW returns approximate neighbours; a beam wider than k (the candidates asked for) raises
recall. Every vector read of the store (search, lineage, neighbours, retrieval) asks for
``max(k x OVERSAMPLE, MIN_CANDIDATES)``; a namespace's own index holds only its thoughts.
"""

OVERSAMPLE = 4
MIN_CANDIDATES = 40
