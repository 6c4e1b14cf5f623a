"""Recall: a question answered from memory, with relative dates resolved."""
