// Views over thoughts: search with each hit's score explanation, and a thought's page
// (its fields, lineage graph, history and usage). Each view renders into `root` and
// resolves once what the API said is on the page.
(function () {
  'use strict';
  var TGX = window.TGX;
  var h = TGX.h;

  var SEARCH = 'query ExplorerSearch($q: String!, $ns: String!, $k: Int) {\n' +
    '  search(query: $q, namespace: $ns, k: $k) {\n' +
    '    id score similarity superseded supersededBy tier retention label\n' +
    '    thought { content type kind createdAt agentName }\n' +
    '    explain { vectorRank textRank textScore keywordScore fusion relevance salienceDecay usage\n' +
    '              pheromone related prior priorFactor lineageFactor supersessionFactor kindFactor score }\n' +
    '  }\n}';

  var EXPLAIN_PARTS = [
    ['relevance', 'relevance'], ['vector rank', 'vectorRank'], ['text rank', 'textRank'],
    ['keyword (BM25)', 'keywordScore'], ['fusion (RRF)', 'fusion'], ['salience decay', 'salienceDecay'],
    ['usage', 'usage'], ['pheromone', 'pheromone'], ['related', 'related'], ['prior', 'prior'],
    ['prior factor', 'priorFactor'], ['lineage factor', 'lineageFactor'],
    ['supersession factor', 'supersessionFactor'], ['kind factor', 'kindFactor'], ['score', 'score'],
  ];

  function explanation(explain) {
    if (!explain) return h('p.hint', { text: 'No explanation (vector search only).' });
    var rows = EXPLAIN_PARTS.map(function (part) {
      var value = explain[part[1]];
      var isRank = part[1] === 'vectorRank' || part[1] === 'textRank';
      var shown = typeof value === 'number' && !isRank ? TGX.number(value, 4) : value;
      return h('tr', null, h('th', { text: part[0] }), h('td.num', { 'data-part': part[1], text: shown === null ? '—' : shown }));
    });
    return h('details.explain', null, h('summary', { text: 'Score explanation' }), h('table', null, h('tbody', null, rows)));
  }

  function hitCard(hit, rank) {
    var badges = [h('span.badge', { text: '#' + rank }), h('span.badge', { text: hit.label })];
    if (hit.superseded) badges.push(h('span.badge.warn', { text: 'superseded' }));
    return h('div.card.hit' + (hit.superseded ? '.superseded' : ''), { 'data-id': hit.id },
      h('div.meta', null, badges, 'score ', h('b.score', { text: TGX.number(hit.score, 4) }),
        ' · similarity ' + TGX.number(hit.similarity, 4) + ' · ' + hit.tier.toLowerCase() +
        ' · ' + hit.thought.agentName + ' · ' + TGX.when(hit.thought.createdAt)),
      h('div.content', { text: hit.thought.content }),
      h('div.meta', null, TGX.thoughtLink(hit.id, 'open ' + hit.id)),
      explanation(hit.explain));
  }

  TGX.views.search = function (params, root) {
    var input = h('input', { type: 'search', name: 'q', value: params.q || '', placeholder: 'What do you want to recall?', 'aria-label': 'Search query' });
    var k = h('input', { type: 'number', name: 'k', min: 1, max: 50, value: params.k || 10, 'aria-label': 'Hits' });
    var results = h('div#results');
    var form = h('form.inline', { onsubmit: function (event) {
      event.preventDefault();
      window.location.hash = '#/search?q=' + encodeURIComponent(input.value) + '&k=' + encodeURIComponent(k.value);
    } }, input, 'k', k, h('button', { type: 'submit', text: 'Search' }));
    TGX.append(root, [h('h1', { text: 'Search' }), form, results]);
    if (!params.q) {
      TGX.append(results, h('p.empty', { text: 'Type a query: hits come back ranked, each with its score explanation.' }));
      return Promise.resolve();
    }
    return TGX.gql(SEARCH, { q: params.q, ns: TGX.settings.namespace(), k: Number(params.k || 10) }).then(function (data) {
      if (!data.search.length) TGX.append(results, h('p.empty', { text: 'No hits.' }));
      data.search.forEach(function (hit, i) { TGX.append(results, hitCard(hit, i + 1)); });
    });
  };

  var THOUGHT = 'query ExplorerThought($id: ID!, $ns: String!) {\n' +
    '  thought(id: $id, namespace: $ns) {\n' +
    '    id content type kind state category tags agentId agentName createdAt revision validFrom validTo\n' +
    '    supersededAt salience importance pinned pheromoneWeight scope topic { id name }\n' +
    '    accessCount lastAccessedAt citeCount lastCitedAt ignoreCount\n' +
    '    supersededBy { id content }\n' +
    '  }\n' +
    '  lineage(id: $id, namespace: $ns, maxDepth: 10) {\n' +
    '    truncated chain { thoughtId type contentPreview contributor createdAt sourceIds depth }\n' +
    '  }\n' +
    '  history(thoughtId: $id, namespace: $ns) { id revision kind actorName at sourceIds }\n' +
    '  related(id: $id, namespace: $ns, first: 10) { strength thought { id content } }\n' +
    '}';

  // Who superseded each chain member, in one operation (aliases t0, t1, ...).
  function supersessions(chain) {
    if (!chain.length) return Promise.resolve({});
    var parts = chain.map(function (node, i) {
      return 't' + i + ': thought(id: $id' + i + ', namespace: $ns) { id supersededBy { id content } }';
    });
    var declared = chain.map(function (node, i) { return '$id' + i + ': ID!'; }).join(', ');
    var variables = { ns: TGX.settings.namespace() };
    chain.forEach(function (node, i) { variables['id' + i] = node.thoughtId; });
    var document = 'query ExplorerSupersession($ns: String!, ' + declared + ') {\n  ' + parts.join('\n  ') + '\n}';
    return TGX.gql(document, variables).then(function (data) {
      var found = {};
      chain.forEach(function (node, i) {
        var read = data['t' + i];
        if (read && read.supersededBy) found[node.thoughtId] = read.supersededBy;
      });
      return found;
    });
  }

  function usage(t) {
    return TGX.fields([
      ['accessCount', t.accessCount], ['lastAccessedAt', TGX.when(t.lastAccessedAt)],
      ['citeCount', t.citeCount], ['lastCitedAt', TGX.when(t.lastCitedAt)],
      ['ignoreCount', t.ignoreCount], ['pheromoneWeight', TGX.number(t.pheromoneWeight, 2)],
    ]);
  }

  function history(events) {
    var rows = events.map(function (e) {
      return h('tr.event', { 'data-revision': e.revision },
        h('td.num', { text: e.revision }), h('td', { text: e.kind }), h('td', { text: TGX.when(e.at) }),
        h('td', { text: e.actorName }), h('td', null, e.sourceIds.map(function (id) { return [TGX.thoughtLink(id), ' ']; })));
    });
    return TGX.table(['revision', 'change', 'at', 'by', 'involving'], rows, 'history');
  }

  function lineageTable(chain) {
    var rows = chain.map(function (node) {
      return h('tr.lineage-node', { 'data-id': node.thoughtId },
        h('td.num', { text: node.depth }), h('td', { text: node.type }),
        h('td', null, TGX.thoughtLink(node.thoughtId, node.contentPreview)), h('td', { text: node.contributor }));
    });
    return TGX.table(['depth', 'type', 'thought', 'by'], rows, 'lineage');
  }

  TGX.views.thought = function (params, root) {
    var ns = TGX.settings.namespace();
    return TGX.gql(THOUGHT, { id: params.id, ns: ns }).then(function (data) {
      var t = data.thought;
      if (!t) {
        TGX.append(root, [h('h1', { text: 'Thought' }), h('p.empty', { text: 'No thought ' + params.id + ' in namespace ' + ns + '.' })]);
        return null;
      }
      var chain = data.lineage.chain;
      return supersessions(chain).then(function (superseded) {
        var container = h('div.graph#lineage-graph');
        TGX.append(root, [
          h('h1', { text: 'Thought ' + t.id }),
          h('div.card.thought', { 'data-id': t.id },
            h('div.meta', null, h('span.badge', { text: t.type }), h('span.badge', { text: t.kind }),
              h('span.badge' + (t.state === 'ACTIVE' ? '' : '.warn'), { text: t.state }),
              t.supersededBy ? h('span.badge.warn', null, 'superseded by ', TGX.thoughtLink(t.supersededBy.id)) : null),
            h('div.content#thought-content', { text: t.content }),
            TGX.fields([
              ['agent', t.agentName + ' (' + t.agentId + ')'], ['created', TGX.when(t.createdAt)],
              ['revision', t.revision], ['category', t.category], ['tags', t.tags.join(', ')],
              ['salience', TGX.number(t.salience, 2)], ['importance', t.importance], ['pinned', String(t.pinned)],
              ['scope', t.scope], ['validFrom', TGX.when(t.validFrom)], ['validTo', TGX.when(t.validTo)],
              ['topic', t.topic ? t.topic.name : null],
            ])),
          h('h2', { text: 'Lineage' + (data.lineage.truncated ? ' (continues past depth 10)' : '') }),
          TGX.lineageGraph.legend(), container, lineageTable(chain),
          h('div.columns', null,
            h('section', null, h('h2', { text: 'History' }), history(data.history)),
            h('section', null, h('h2', { text: 'Usage' }), usage(t))),
        ]);
        TGX.lineageGraph.draw(container, t.id, chain, superseded, data.related);
        return null;
      });
    });
  };
})();
