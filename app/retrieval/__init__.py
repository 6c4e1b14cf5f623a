"""Retrieval: how search candidates are found, fused and expanded."""
