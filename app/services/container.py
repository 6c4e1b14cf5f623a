"""All services, built once per process from an open store and an embedder."""

from __future__ import annotations

from dataclasses import dataclass

from app.services.browse import BrowseService
from app.services.history import HistoryService
from app.services.lineage import LineageService
from app.services.ports import Embeddings
from app.services.search import SearchService
from app.services.thoughts import ThoughtService
from app.store.interface import GraphStore


@dataclass(frozen=True)
class Services:
    store: GraphStore
    embedder: Embeddings
    thoughts: ThoughtService
    browse: BrowseService
    search: SearchService
    lineage: LineageService
    history: HistoryService

    @classmethod
    def build(cls, store: GraphStore, embedder: Embeddings) -> Services:
        return cls(
            store=store,
            embedder=embedder,
            thoughts=ThoughtService(store, embedder),
            browse=BrowseService(store),
            search=SearchService(store, embedder),
            lineage=LineageService(store),
            history=HistoryService(store),
        )
