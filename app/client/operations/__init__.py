"""Every root field of the service, grouped by feature: documents plus sync and async methods."""
