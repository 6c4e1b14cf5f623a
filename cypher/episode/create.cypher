// An episode: the narrative it was told as, its compressed levels and artifacts. Its
// thoughts are written after it, each with a PART_OF edge (thought/create). The id comes
// from the transcript, so re-ingesting the same transcript finds it (no row).
OPTIONAL MATCH (existing:Episode {id: $id})
WITH existing
WHERE existing IS NULL
CREATE (ep:Episode {
  id: $id, namespace: $namespace, title: $title, narrative: $narrative, summary: $summary,
  compressed: $compressed, indexLabel: $indexLabel, artifactKinds: $artifactKinds,
  artifactRefs: $artifactRefs, thoughtIds: $thoughtIds, createdAt: $at,
  extractor: $extractor, scope: $scope, ownerId: $ownerId,
  {{ space(embedding) }}: {{ vector($embedding) }}
})
WITH ep
{{ append_change(ep) }}
RETURN ep.id AS id, log.revision AS revision
