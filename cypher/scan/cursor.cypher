// How far the namespace's scans of new thoughts have come: the change log's head and the
// revision up to which every thought written has been scanned (0 before the first scan).
OPTIONAL MATCH (log:ChangeLog {namespace: $namespace})
RETURN coalesce(log.revision, 0) AS head, coalesce(log.scannedRevision, 0) AS scanned
