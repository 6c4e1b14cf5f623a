"""Vector spaces and re-embedding (features.reembedding): its status and the admin request."""
