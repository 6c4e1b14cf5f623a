"""Checkpoints: a client's saved state of a thread, per user, with its history."""
