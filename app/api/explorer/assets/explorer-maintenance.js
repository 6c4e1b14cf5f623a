// Views over maintained knowledge: the contradictions queue (with its decisions), topics,
// consolidation runs (with their merges and an undo), the timeline of changes since a
// revision and what assembleContext gives for a query, tier by tier.
(function () {
  'use strict';
  var TGX = window.TGX;
  var h = TGX.h;

  var CONTRADICTIONS = 'query ExplorerContradictions($ns: String!, $status: ContradictionStatus) {\n' +
    '  contradictions(namespace: $ns, status: $status, first: 50) {\n' +
    '    id status relation confidence detector explanation detectedAt resolution note resolvedBy\n' +
    '    thoughtA { id content createdAt } thoughtB { id content createdAt } mergedThoughtId\n' +
    '  }\n}';
  var RESOLVE = 'mutation ExplorerResolve($id: ID!, $ns: String!, $resolution: Resolution!, $note: String) {\n' +
    '  resolveContradiction(id: $id, namespace: $ns, resolution: $resolution, note: $note) { id status resolution }\n}';
  var DECISIONS = [['A_WINS', 'Older wins'], ['B_WINS', 'Newer wins'], ['BOTH_VALID', 'Both valid'], ['MERGED', 'Merge']];

  function side(label, thought) {
    if (!thought) return h('div', null, h('b', { text: label + ': ' }), h('span.empty', { text: 'not readable' }));
    return h('div.side', { 'data-id': thought.id }, h('b', { text: label + ' ' }), TGX.thoughtLink(thought.id, thought.id.slice(0, 8)),
      h('div.content', { text: thought.content }));
  }

  function contradictionCard(c, reload) {
    var note = h('input', { type: 'text', placeholder: 'note (optional)', 'aria-label': 'Note' });
    var actions = c.status === 'OPEN' ? h('div.actions', null, note, DECISIONS.map(function (d) {
      return h('button', { type: 'button', 'data-resolution': d[0], text: d[1], onclick: function () {
        TGX.status('Resolving ' + c.id + ' as ' + d[0] + '…');
        TGX.gql(RESOLVE, { id: c.id, ns: TGX.settings.namespace(), resolution: d[0], note: note.value || null })
          .then(function () { TGX.status('Resolved ' + c.id + ' as ' + d[0] + '.'); reload(); })
          .catch(TGX.fail);
      } });
    })) : h('div.meta', { text: 'Resolved ' + c.resolution + (c.resolvedBy ? ' by ' + c.resolvedBy : '') + (c.note ? ': ' + c.note : '') });
    return h('div.card.contradiction', { 'data-id': c.id, 'data-status': c.status },
      h('div.meta', null, h('span.badge' + (c.status === 'OPEN' ? '.warn' : ''), { text: c.status }),
        c.relation + ' · confidence ' + TGX.number(c.confidence, 2) + ' · ' + c.detector + ' · ' + TGX.when(c.detectedAt)),
      h('div.columns', null, side('A (older)', c.thoughtA), side('B (newer)', c.thoughtB)),
      h('p.hint', { text: c.explanation }), actions);
  }

  TGX.views.contradictions = function (params, root) {
    var status = params.status || 'OPEN';
    var picker = h('select', { 'aria-label': 'Status', onchange: function () {
      window.location.hash = '#/contradictions?status=' + picker.value;
    } }, ['OPEN', 'RESOLVED', 'ALL'].map(function (s) { return h('option', { value: s, selected: s === status, text: s }); }));
    var list = h('div#contradictions');
    TGX.append(root, [h('h1', { text: 'Contradictions' }), h('form.inline', null, 'Status ', picker), list]);
    function load() {
      return TGX.gql(CONTRADICTIONS, { ns: TGX.settings.namespace(), status: status === 'ALL' ? null : status }).then(function (data) {
        list.textContent = '';
        if (!data.contradictions.length) TGX.append(list, h('p.empty', { text: 'None.' }));
        data.contradictions.forEach(function (c) { TGX.append(list, contradictionCard(c, load)); });
        root.setAttribute('data-loaded', String(Date.now()));
      });
    }
    return load();
  };

  var TOPICS = 'query ExplorerTopics($ns: String!) {\n' +
    '  topics(namespace: $ns, first: 50) {\n' +
    '    id name summary thoughtCount unsummarisedCount updatedAt summarisedAt\n' +
    '    thoughts(first: 20) { id content }\n' +
    '  }\n}';

  TGX.views.topics = function (params, root) {
    TGX.append(root, h('h1', { text: 'Topics' }));
    return TGX.gql(TOPICS, { ns: TGX.settings.namespace() }).then(function (data) {
      if (!data.topics.length) TGX.append(root, h('p.empty', { text: 'No topics yet: consolidation runs make them.' }));
      data.topics.forEach(function (topic) {
        TGX.append(root, h('div.card.topic', { 'data-id': topic.id },
          h('h2', { text: topic.name }),
          h('div.meta', { text: topic.thoughtCount + ' thoughts · ' + topic.unsummarisedCount + ' since the summary · updated ' + TGX.when(topic.updatedAt) }),
          h('p.summary', { text: topic.summary || 'No summary yet.' }),
          h('ul.members', null, topic.thoughts.map(function (t) {
            return h('li', { 'data-id': t.id }, TGX.thoughtLink(t.id, t.content));
          }))));
      });
    });
  };

  var RUNS = 'query ExplorerRuns($ns: String!) {\n' +
    '  consolidationRuns(namespace: $ns, first: 20) {\n' +
    '    id status dryRun trigger requestedAt startedAt finishedAt durationMs attempts error\n' +
    '    counts { candidates deduped assigned summarised superseded forgotten purged contradictionsFound links pairsJudged }\n' +
    '    usage { llmCalls promptTokens completionTokens costUsd }\n' +
    '    merges(first: 100) { id state sourceIds }\n' +
    '  }\n}';
  var UNDO = 'mutation ExplorerUndo($id: ID!, $ns: String!) {\n' +
    '  undoConsolidation(thoughtId: $id, namespace: $ns) { id state }\n}';
  var COUNTS = ['candidates', 'deduped', 'assigned', 'summarised', 'superseded', 'forgotten', 'purged', 'contradictionsFound', 'links', 'pairsJudged'];

  // A run's merges: the consolidation thoughts it wrote; an undone one is soft-deleted.
  function runCard(run, reload) {
    var merges = run.merges;
    var rows = COUNTS.map(function (name) { return h('td.num', { 'data-count': name, text: run.counts[name] }); });
    var mergeList = merges.length ? h('ul.merges', null, merges.map(function (e) {
      var isUndone = e.state === 'SOFT_DELETED';
      return h('li.merge', { 'data-id': e.id },
        TGX.thoughtLink(e.id), ' merged ', e.sourceIds.map(function (id) { return [TGX.thoughtLink(id, id.slice(0, 8)), ' ']; }),
        isUndone ? h('span.badge', { text: 'undone' }) : h('button.undo', { type: 'button', text: 'Undo merge', onclick: function () {
          TGX.status('Undoing merge ' + e.id + '…');
          TGX.gql(UNDO, { id: e.id, ns: TGX.settings.namespace() })
            .then(function (data) { TGX.status('Undone: ' + data.undoConsolidation.length + ' sources are current again.'); reload(); })
            .catch(TGX.fail);
        } }));
    })) : h('p.hint', { text: 'No merges made by this run.' });
    return h('div.card.run', { 'data-id': run.id, 'data-status': run.status },
      h('div.meta', null, h('span.badge' + (run.status === 'FAILED' ? '.warn' : ''), { text: run.status }),
        run.dryRun ? h('span.badge', { text: 'dry run' }) : null,
        run.trigger + ' · requested ' + TGX.when(run.requestedAt) + ' · finished ' + TGX.when(run.finishedAt) +
        (run.durationMs !== null ? ' · ' + run.durationMs + ' ms' : '') + ' · ' + run.usage.llmCalls + ' LLM calls'),
      h('div', { text: run.id }),
      TGX.table(COUNTS, [h('tr', null, rows)], 'counts'),
      run.error ? h('p.hint', { text: run.error }) : null,
      mergeList);
  }

  TGX.views.runs = function (params, root) {
    var list = h('div#runs');
    TGX.append(root, [h('h1', { text: 'Consolidation runs' }), list]);
    var ns = TGX.settings.namespace();
    function load() {
      return TGX.gql(RUNS, { ns: ns }).then(function (data) {
        var runs = data.consolidationRuns;
        list.textContent = '';
        if (!runs.length) TGX.append(list, h('p.empty', { text: 'No runs yet.' }));
        runs.forEach(function (run) { TGX.append(list, runCard(run, load)); });
        root.setAttribute('data-loaded', String(Date.now()));
      });
    }
    return load();
  };

  var SINCE = 'query ExplorerTimeline($ns: String!, $revision: Int!) {\n' +
    '  changesSince(namespace: $ns, revision: $revision, limit: 100) {\n' +
    '    revision events { id revision kind subjectKind subjectId thoughtId sourceIds actorName at }\n' +
    '  }\n}';

  TGX.views.timeline = function (params, root) {
    var since = Number(params.since || 0);
    var input = h('input', { type: 'number', min: 0, value: since, 'aria-label': 'Since revision' });
    var form = h('form.inline', { onsubmit: function (event) {
      event.preventDefault();
      window.location.hash = '#/timeline?since=' + encodeURIComponent(input.value || '0');
    } }, 'Changes after revision ', input, h('button', { type: 'submit', text: 'Show' }));
    TGX.append(root, [h('h1', { text: 'Timeline' }), form]);
    return TGX.gql(SINCE, { ns: TGX.settings.namespace(), revision: since }).then(function (data) {
      var events = data.changesSince.events;
      var rows = events.map(function (e) {
        var subject = e.subjectKind === 'THOUGHT' ? TGX.thoughtLink(e.subjectId) : e.subjectId;
        return h('tr.event', { 'data-revision': e.revision, 'data-kind': e.kind },
          h('td.num', { text: e.revision }), h('td', { text: TGX.when(e.at) }), h('td', { text: e.kind }),
          h('td', { text: e.subjectKind }), h('td', null, subject), h('td', { text: e.actorName }));
      });
      TGX.append(root, [
        h('p.meta', { text: 'The namespace is at revision ' + data.changesSince.revision + '; ' + events.length + ' events shown.' }),
        TGX.table(['revision', 'at', 'change', 'subject', 'id', 'by'], rows, 'timeline'),
        events.length === 100 ? h('a', { href: '#/timeline?since=' + events[events.length - 1].revision, text: 'Later changes →' }) : null,
      ]);
    });
  };

  var CONTEXT = 'query ExplorerContext($ns: String!, $query: String, $budget: Int) {\n' +
    '  assembleContext(namespace: $ns, budget: $budget, signals: { query: $query }) {\n' +
    '    text tokenCount budget tokenizer revision candidates\n' +
    '    tiers { tier name budget items tokens }\n' +
    '    items { key tier source level tokens confidence text }\n' +
    '  }\n}';

  TGX.views.context = function (params, root) {
    var query = h('input.wide', { type: 'text', value: params.q || '', placeholder: 'What is the agent about to do?', 'aria-label': 'Context query' });
    var budget = h('input', { type: 'number', min: 100, max: 100000, value: params.budget || 2000, 'aria-label': 'Budget' });
    var form = h('form.inline', { onsubmit: function (event) {
      event.preventDefault();
      window.location.hash = '#/context?q=' + encodeURIComponent(query.value) + '&budget=' + encodeURIComponent(budget.value);
    } }, query, 'budget (tokens)', budget, h('button', { type: 'submit', text: 'Assemble' }));
    TGX.append(root, [h('h1', { text: 'Context' }), form]);
    if (!params.q) {
      TGX.append(root, h('p.empty', { text: 'Type what the agent is working on: the context assembleContext would give, tier by tier.' }));
      return Promise.resolve();
    }
    return TGX.gql(CONTEXT, { ns: TGX.settings.namespace(), query: params.q, budget: Number(params.budget || 2000) }).then(function (data) {
      var c = data.assembleContext;
      var tierRows = c.tiers.map(function (t) {
        return h('tr.tier', { 'data-tier': t.tier }, h('td.num', { text: t.tier }), h('td', { text: t.name }),
          h('td.num', { 'data-col': 'items', text: t.items }), h('td.num', { 'data-col': 'tokens', text: t.tokens }),
          h('td.num', { text: t.budget }));
      });
      var sections = c.tiers.map(function (t) {
        var items = c.items.filter(function (item) { return item.tier === t.tier; });
        return h('section.tier-items', { 'data-tier': t.tier }, h('h2', { text: 'Tier ' + t.tier + ' · ' + t.name }),
          items.length ? items.map(function (item) {
            return h('div.card.item', { 'data-key': item.key },
              h('div.meta', { text: item.source + ' · ' + item.level + ' · ' + item.tokens + ' tokens · confidence ' + TGX.number(item.confidence, 2) }),
              h('div.content', { text: item.text }));
          }) : h('p.empty', { text: 'Nothing in this tier.' }));
      });
      TGX.append(root, [
        h('p.meta#context-total', { text: c.tokenCount + ' of ' + c.budget + ' tokens (' + c.tokenizer + '), ' + c.candidates + ' candidates, revision ' + c.revision }),
        TGX.table(['tier', 'name', 'items', 'tokens', 'budget'], tierRows, 'tiers'),
        sections,
        h('h2', { text: 'Text given to the agent' }), h('pre#context-text', { text: c.text }),
      ]);
    });
  };
})();
