"""Operational events: what the service did, per namespace."""
