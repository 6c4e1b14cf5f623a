// A thought's lineage drawn with Cytoscape.js: its sources (left) and refinements (right)
// by depth, the thoughts that superseded chain members and the thoughts consolidation
// linked to it as related (below). Edges point from the newer thought to the one it
// refines, consolidates or supersedes; RELATED_TO has no direction. A click on a node
// walks to that thought's page.
(function () {
  'use strict';
  var TGX = window.TGX;
  var COLUMN = 260;
  var ROW = 110;
  var EDGE_FOR_TYPE = { REFINEMENT: 'REFINES', CONSOLIDATION: 'CONSOLIDATES' };

  function caption(text) {
    var flat = String(text || '').replace(/\s+/g, ' ').trim();
    return flat.length > 60 ? flat.slice(0, 57) + '…' : flat;
  }

  // The graph's nodes and edges from the API's answers; positions by depth.
  function elements(centerId, chain, supersededBy, related) {
    var nodes = {};
    var edges = [];
    var seen = {};
    var byDepth = {};
    function addNode(id, label, kind, position) {
      if (nodes[id]) return;
      nodes[id] = { data: { id: id, label: caption(label), kind: kind }, position: position };
    }
    // One lineage or SUPERSEDES edge per pair (a refinement also supersedes its source:
    // drawn once, as REFINES); a RELATED_TO link is drawn beside them.
    function addEdge(from, to, type, label) {
      var prefix = type === 'RELATED_TO' ? 'related:' : '';
      var key = prefix + from + '>' + to;
      if (seen[key] || seen[prefix + to + '>' + from]) return;
      seen[key] = true;
      edges.push({ data: { id: type + ':' + from + '>' + to, source: from, target: to, type: type, label: label || type } });
    }
    chain.forEach(function (node) {
      var row = byDepth[node.depth] || 0;
      byDepth[node.depth] = row + 1;
      var kind = node.thoughtId === centerId ? 'center' : node.type.toLowerCase();
      addNode(node.thoughtId, node.contentPreview, kind, { x: node.depth * COLUMN, y: row * ROW });
    });
    chain.forEach(function (node) {
      (node.sourceIds || []).forEach(function (source) {
        if (nodes[source]) addEdge(node.thoughtId, source, EDGE_FOR_TYPE[node.type] || 'REFINES');
      });
    });
    var maxRow = Math.max.apply(null, [0].concat(Object.keys(byDepth).map(function (d) { return byDepth[d]; })));
    var extraRow = maxRow * ROW + 40;
    var extra = 0;
    function placeExtra() {
      var position = { x: (extra - 0.5) * COLUMN, y: extraRow };
      extra += 1;
      return position;
    }
    Object.keys(supersededBy).forEach(function (olderId) {
      var newer = supersededBy[olderId];
      if (!newer || !nodes[olderId]) return;
      addNode(newer.id, newer.content, 'superseding', placeExtra());
      addEdge(newer.id, olderId, 'SUPERSEDES');
    });
    related.forEach(function (link) {
      addNode(link.thought.id, link.thought.content, 'related', placeExtra());
      addEdge(centerId, link.thought.id, 'RELATED_TO', 'RELATED_TO ' + TGX.number(link.strength, 2));
    });
    return Object.keys(nodes).map(function (id) { return nodes[id]; }).concat(edges);
  }

  var STYLE = [
    { selector: 'node', style: {
      shape: 'round-rectangle', width: 180, height: 62, 'background-color': '#e6f0fa',
      'border-width': 1, 'border-color': '#829ab1', label: 'data(label)', 'font-size': 10,
      'text-wrap': 'wrap', 'text-max-width': 165, 'text-valign': 'center', color: '#1f2933' } },
    { selector: 'node[kind = "center"]', style: { 'background-color': '#fff3c4', 'border-width': 3, 'border-color': '#c99a06' } },
    { selector: 'node[kind = "consolidation"]', style: { 'background-color': '#e3f9e5' } },
    { selector: 'node[kind = "superseding"]', style: { 'background-color': '#ffe8d9' } },
    { selector: 'node[kind = "related"]', style: { 'background-color': '#eae2f8' } },
    { selector: 'edge', style: {
      width: 2, 'curve-style': 'bezier', 'target-arrow-shape': 'triangle', label: 'data(label)',
      'font-size': 9, 'text-background-color': '#ffffff', 'text-background-opacity': 1,
      'text-rotation': 'autorotate' } },
    { selector: 'edge[type = "REFINES"]', style: { 'line-color': '#2f6fb2', 'target-arrow-color': '#2f6fb2' } },
    { selector: 'edge[type = "CONSOLIDATES"]', style: { 'line-color': '#2b8a3e', 'target-arrow-color': '#2b8a3e' } },
    { selector: 'edge[type = "SUPERSEDES"]', style: { 'line-color': '#b44d12', 'target-arrow-color': '#b44d12', 'line-style': 'dashed' } },
    // Curved, so a link across the chain does not run under the nodes between.
    { selector: 'edge[type = "RELATED_TO"]', style: {
      'line-color': '#7b61a8', 'line-style': 'dotted', 'target-arrow-shape': 'none',
      'curve-style': 'unbundled-bezier', 'control-point-distances': 70, 'control-point-weights': 0.5 } },
  ];

  function legend() {
    var h = TGX.h;
    return h('div.legend', null,
      h('span.edge.refines', { text: 'REFINES' }), h('span.edge.consolidates', { text: 'CONSOLIDATES' }),
      h('span.edge.supersedes', { text: 'SUPERSEDES' }), h('span.edge.related', { text: 'RELATED_TO' }),
      h('span', { text: 'click a node to walk to it' }));
  }

  // Draws into `container` (already in the page, so it has a size); returns the graph.
  function draw(container, centerId, chain, supersededBy, related) {
    if (TGX.graph) TGX.graph.destroy();
    var cy = window.cytoscape({
      container: container,
      elements: elements(centerId, chain, supersededBy, related),
      style: STYLE,
      layout: { name: 'preset', fit: true, padding: 30 },
      wheelSensitivity: 0.3,
      maxZoom: 1.6,
    });
    cy.on('tap', 'node', function (event) {
      var id = event.target.id();
      if (id !== centerId) window.location.hash = '#/thought/' + encodeURIComponent(id);
    });
    // The drawn graph, for the page's tests (tests/browser/explorer.mjs) and the console.
    TGX.graph = cy;
    return cy;
  }

  TGX.lineageGraph = { draw: draw, legend: legend, elements: elements };
})();
