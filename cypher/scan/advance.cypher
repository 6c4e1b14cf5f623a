// Moves the scan cursor forward to $revision (never back: two scans that overlapped
// leave it at the further one). Bookkeeping of the worker, not a change of knowledge, so
// no change event.
MATCH (log:ChangeLog {namespace: $namespace})
SET log.scannedRevision = CASE
  WHEN coalesce(log.scannedRevision, 0) < $revision THEN $revision
  ELSE log.scannedRevision
END
RETURN log.scannedRevision AS scanned
