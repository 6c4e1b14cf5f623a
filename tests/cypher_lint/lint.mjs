// Lints Cypher statements with Neo4j's own Cypher front end (@neo4j-cypher/language-support:
// the ANTLR parser plus Neo4j's semantic analysis compiled to JavaScript).
//
// stdin:  [{"name": "...", "text": "...", "parameters": {"name": value, ...}}, ...]
// stdout: {"linter": {...}, "cypherVersions": [...],
//          "results": [{"name", "cypherVersion", "diagnostics": [...]}, ...]}
// Exit status 0 when linting ran (whatever it found), 2 when the linter itself is broken.
//
// Every statement is linted once per Cypher version in CYPHER_VERSIONS: "CYPHER 5" is what
// Neo4j 5.26 runs and what 2025.x databases default to; "CYPHER 25" is what a 2025.x
// database runs once its default language is switched, so a statement must pass both.

import { readFileSync } from 'node:fs';
import { lintCypherQuery, testData } from '@neo4j-cypher/language-support';

const PACKAGE = '@neo4j-cypher/language-support';
const CYPHER_VERSIONS = ['CYPHER 5', 'CYPHER 25'];
const SEVERITY = { 1: 'error', 2: 'warning', 3: 'information', 4: 'hint' };
const DEPRECATED_TAG = 2; // vscode-languageserver-types DiagnosticTag.Deprecated

// The graph this service writes: declaring it turns a misspelt label, relationship type or
// property key into a warning instead of a query that silently matches nothing.
const LABELS = [
  'Thought', 'Original', 'Refinement', 'Consolidation', 'ChangeEvent', 'ChangeLog',
  'SchemaMeta', 'Topic', 'Contradiction', 'Episode', 'ConsolidationRun', 'PairCheck',
  'OpsEvent', 'MergeProposal', 'ConsentRequest', 'ExtractionQuota', 'Checkpoint',
];
const RELATIONSHIP_TYPES = [
  'REFINES', 'CONSOLIDATES', 'CONCERNS', 'SUPERSEDES', 'RELATED_TO', 'BELONGS_TO', 'INVOLVES',
  'PART_OF', 'PROPOSES',
];
const PROPERTY_KEYS = [
  // Thought
  'id', 'namespace', 'type', 'content', 'agentId', 'agentName', 'context', 'sessionId',
  'tags', 'pheromoneWeight', 'createdAt', 'sourceIds', 'embedding',
  // REFINES / CONSOLIDATES
  'reason', 'reasonEmbedding',
  // The vector properties of vector slot 1 (app/ports/vector_slots.py), on the same nodes
  // and relationships as slot 0's
  'embedding_1', 'reasonEmbedding_1',
  // ChangeEvent
  'revision', 'kind', 'thoughtId', 'actorId', 'actorName', 'actorKeyId', 'at',
  'subjectKind', 'subjectId',
  // Thought: knowledge maintenance
  'salience', 'importance', 'pinned', 'category', 'lastAccessedAt', 'accessCount', 'state',
  'purgeAt', 'validFrom', 'validTo', 'supersededAt', 'supersededBy', 'episodeId', 'topicId',
  'forgottenAt', 'mergeOf', 'mergedInto', 'runId',
  // Thought: whose memory it is, and the person a person field is about
  'scope', 'ownerId', 'about',
  // Thought: usage (cite, ignore)
  'citeCount', 'ignoreCount', 'lastCitedAt', 'lastCitedAction',
  // SUPERSEDES / RELATED_TO / BELONGS_TO / INVOLVES
  'detector', 'confidence', 'strength', 'side',
  // Topic
  'name', 'summary', 'thoughtCount', 'unsummarisedCount', 'updatedAt', 'summarisedAt',
  'summarisedBy',
  // Contradiction
  'thoughtAId', 'thoughtBId', 'status', 'relation', 'detectedAt', 'explanation', 'resolution',
  'note', 'resolvedBy', 'resolvedAt', 'mergedThoughtId',
  // Episode
  'title', 'narrative', 'compressed', 'indexLabel', 'artifactKinds', 'artifactRefs',
  'thoughtIds', 'extractor',
  // MergeProposal (thoughtIds, status, similarity, mergedThoughtId as above)
  'ownerIds', 'decisions', 'decidedAt',
  // ConsentRequest (id, namespace, status, thoughtId, evidence, createdAt, decidedAt, note
  // as above); the (person, field) keys of consent.field_values
  'person', 'field', 'sensitivity', 'value', 'patch', 'evidence', 'replacesIds', 'proposedById',
  'proposedByName', 'proposedByUser', 'signals', 'expiresAt', 'decidedBy',
  // Checkpoint (id, namespace, user, createdAt, revision as above)
  'checkpointId', 'threadId', 'parentId', 'data', 'metadata', 'sizeBytes',
  // A workflow's or code pattern's structure, on its Thought (features/procedures)
  'procedureTrigger', 'procedureHint', 'procedureSteps', 'procedureTemplate', 'procedureFiles',
  // ExtractionQuota (id, namespace as above)
  'user', 'day', 'count',
  // ConsolidationRun
  'dryRun', 'trigger', 'requestedAt', 'startedAt', 'finishedAt', 'attempts', 'counts',
  'usage', 'error',
  // PairCheck
  'judgedAt', 'permanent',
  // OpsEvent (operational events; id, namespace, category, at as above)
  'node', 'op', 'memoryId', 'similarity',
  // Expansion anchors (parameter maps: cypher/expansion)
  'earliest', 'latest',
  // Insight gathering (parameter maps: cypher/insights; person as above)
  'since',
  // Export and import rows (parameter maps: cypher/transfer)
  'fromId', 'toId', 'properties', 'vector',
  // ChangeLog (and its scan cursor)
  'lock', 'scannedRevision',
  // SchemaMeta
  'key', 'embeddingDimension', 'embedder', 'schemaVersion',
  // SchemaMeta: the active vector slot and a re-embedding into the other (cypher/reembedding)
  'activeSlot', 'activeSettings', 'nextSlot', 'nextEmbedder', 'nextDimension', 'nextSettings',
  'retiredSlot', 'reembedStartedAt', 'switchedAt',
  // Re-embedding rows (parameter maps: cypher/reembedding)
  'sourceId', 'targetId',
];
const GRAPH_SCHEMA = [
  { from: 'Thought', to: 'Thought', relType: 'REFINES' },
  { from: 'Thought', to: 'Thought', relType: 'CONSOLIDATES' },
  { from: 'ChangeEvent', to: 'Thought', relType: 'CONCERNS' },
  { from: 'ChangeEvent', to: 'Topic', relType: 'CONCERNS' },
  { from: 'ChangeEvent', to: 'Contradiction', relType: 'CONCERNS' },
  { from: 'ChangeEvent', to: 'Episode', relType: 'CONCERNS' },
  { from: 'ChangeEvent', to: 'ConsolidationRun', relType: 'CONCERNS' },
  { from: 'Thought', to: 'Thought', relType: 'SUPERSEDES' },
  { from: 'Thought', to: 'Thought', relType: 'RELATED_TO' },
  { from: 'Thought', to: 'Topic', relType: 'BELONGS_TO' },
  { from: 'Thought', to: 'Episode', relType: 'PART_OF' },
  { from: 'Contradiction', to: 'Thought', relType: 'INVOLVES' },
  { from: 'MergeProposal', to: 'Thought', relType: 'PROPOSES' },
  { from: 'ChangeEvent', to: 'MergeProposal', relType: 'CONCERNS' },
  { from: 'ChangeEvent', to: 'ConsentRequest', relType: 'CONCERNS' },
  { from: 'ChangeEvent', to: 'Checkpoint', relType: 'CONCERNS' },
];

// Procedures the statements call. The package ships the procedure and function signatures
// of a real Neo4j server (testData.mockSchema) for each Cypher version; these are declared
// here only in case a future version of that data drops one of them.
const REQUIRED_PROCEDURES = {
  'db.index.vector.queryNodes': {
    args: [['indexName', 'STRING'], ['numberOfNearestNeighbours', 'INTEGER'], ['query', 'ANY']],
    returns: [['node', 'NODE'], ['score', 'FLOAT']],
    mode: 'READ',
  },
  'db.index.vector.queryRelationships': {
    args: [['indexName', 'STRING'], ['numberOfNearestNeighbours', 'INTEGER'], ['query', 'ANY']],
    returns: [['relationship', 'RELATIONSHIP'], ['score', 'FLOAT']],
    mode: 'READ',
  },
  'db.index.fulltext.queryNodes': {
    args: [['indexName', 'STRING'], ['queryString', 'STRING'], ['options', 'MAP', '{}']],
    returns: [['node', 'NODE'], ['score', 'FLOAT']],
    mode: 'READ',
  },
  'db.awaitIndexes': {
    args: [['timeOutSeconds', 'INTEGER', '300']],
    returns: [],
    mode: 'READ',
  },
};

function declareProcedure(name, { args, returns, mode }) {
  const describe = ([argName, type, dflt]) => ({
    name: argName,
    type,
    description: argName,
    isDeprecated: false,
    ...(dflt === undefined ? {} : { default: `DefaultParameterValue{value=${dflt}, type=${type}}` }),
  });
  const sig = (list) =>
    list.map(([n, t, d]) => (d === undefined ? `${n} :: ${t}` : `${n} = ${d} :: ${t}`)).join(', ');
  return {
    name,
    description: name,
    mode,
    worksOnSystem: false,
    admin: false,
    option: { deprecated: false },
    argumentDescription: args.map(describe),
    returnDescription: returns.map(describe),
    signature: `${name}(${sig(args)})${returns.length ? ` :: (${sig(returns)})` : ''}`,
  };
}

function registries() {
  const mock = testData.mockSchema;
  const procedures = {};
  const functions = {};
  for (const version of CYPHER_VERSIONS) {
    const shipped = mock.procedures?.[version] ?? {};
    const declared = Object.fromEntries(
      Object.entries(REQUIRED_PROCEDURES).map(([name, spec]) => [name, declareProcedure(name, spec)]),
    );
    procedures[version] = { ...declared, ...shipped };
    functions[version] = mock.functions?.[version] ?? {};
    if (Object.keys(functions[version]).length === 0) {
      throw new Error(`${PACKAGE} ships no function signatures for ${version}`);
    }
  }
  return { procedures, functions };
}

function dbSchema(version, parameters, { procedures, functions }) {
  return {
    labels: LABELS,
    relationshipTypes: RELATIONSHIP_TYPES,
    propertyKeys: PROPERTY_KEYS,
    graphSchema: GRAPH_SCHEMA,
    parameters,
    procedures,
    functions,
    defaultLanguage: version,
  };
}

function lint(text, version, parameters, known) {
  const { diagnostics } = lintCypherQuery(text, dbSchema(version, parameters, known), {
    consoleCommandsEnabled: false,
  });
  return diagnostics.map((d) => ({
    severity: SEVERITY[d.severity] ?? String(d.severity),
    deprecated: (d.tags ?? []).includes(DEPRECATED_TAG) || /deprecat/i.test(d.message),
    message: d.message,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    excerpt: text.slice(d.offsets.start, d.offsets.end),
  }));
}

// The package swallows any exception thrown inside its semantic analysis and then reports
// nothing, which would make every statement look clean: prove the analysis is alive first.
function selfCheck(known) {
  for (const version of CYPHER_VERSIONS) {
    const undefinedVariable = lint('RETURN x', version, {}, known);
    if (!undefinedVariable.some((d) => d.severity === 'error' && /not defined/.test(d.message))) {
      return `semantic analysis reported nothing for "RETURN x" under ${version}`;
    }
    const deprecated = lint('MATCH (n) RETURN id(n) AS i', version, {}, known);
    if (!deprecated.some((d) => d.deprecated)) {
      return `no deprecation reported for id() under ${version}`;
    }
  }
  return null;
}

function main() {
  // The package's exports map hides package.json from require/import: read the file.
  const manifest = JSON.parse(
    readFileSync(new URL(`./node_modules/${PACKAGE}/package.json`, import.meta.url), 'utf8'),
  );
  const known = registries();
  const problem = selfCheck(known);
  if (problem) {
    process.stderr.write(`cypher lint: the linter is not working (${problem}); node ${process.version}\n`);
    process.exit(2);
  }
  const statements = JSON.parse(readFileSync(0, 'utf8'));
  const results = [];
  for (const { name, text, parameters } of statements) {
    for (const version of CYPHER_VERSIONS) {
      results.push({
        name,
        cypherVersion: version,
        diagnostics: lint(text, version, parameters ?? {}, known),
      });
    }
  }
  const linter = { package: PACKAGE, version: manifest.version, node: process.version };
  process.stdout.write(JSON.stringify({ linter, cypherVersions: CYPHER_VERSIONS, results }, null, 1));
}

main();
