// The memory explorer's core: DOM building (text only, never HTML from data), the
// settings kept in localStorage (API key, namespace), the GraphQL client and the status
// line. Views (explorer-thoughts.js, explorer-maintenance.js) register on TGX.views.
(function () {
  'use strict';
  var KEY_STORE = 'thoughtgraph.explorer.apiKey';
  var NS_STORE = 'thoughtgraph.explorer.namespace';
  var RECENT_STORE = 'thoughtgraph.explorer.namespaces';
  var GRAPHQL_URL = 'graphql'; // relative: /graphql beside /explore, also behind a prefix

  // h('tag.class#id', {attr: value, onclick: fn}, child, ...): children are nodes or text.
  function h(spec, attrs) {
    var hash = spec.split('#');
    var parts = hash[0].split('.');
    var el = document.createElement(parts[0] || 'div');
    if (parts.length > 1) el.className = parts.slice(1).join(' ');
    if (hash[1]) el.id = hash[1];
    var props = attrs || {};
    Object.keys(props).forEach(function (name) {
      var value = props[name];
      if (value === null || value === undefined || value === false) return;
      if (name.slice(0, 2) === 'on') el.addEventListener(name.slice(2), value);
      else if (name === 'text') el.textContent = String(value);
      else el.setAttribute(name, value === true ? '' : String(value));
    });
    for (var i = 2; i < arguments.length; i += 1) append(el, arguments[i]);
    return el;
  }

  function append(el, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) child.forEach(function (c) { append(el, c); });
    else el.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }

  function read(name, fallback) {
    try {
      var value = window.localStorage.getItem(name);
      return value === null ? fallback : value;
    } catch (e) {
      return fallback;
    }
  }

  function write(name, value) {
    try {
      window.localStorage.setItem(name, value);
    } catch (e) {
      /* private mode: the setting lasts for this page only */
    }
  }

  var settings = {
    apiKey: function () { return read(KEY_STORE, ''); },
    setApiKey: function (key) { write(KEY_STORE, key.trim()); },
    namespace: function () { return read(NS_STORE, 'default') || 'default'; },
    setNamespace: function (ns) {
      var name = ns.trim() || 'default';
      write(NS_STORE, name);
      var recent = settings.recentNamespaces().filter(function (n) { return n !== name; });
      recent.unshift(name);
      write(RECENT_STORE, JSON.stringify(recent.slice(0, 12)));
    },
    recentNamespaces: function () {
      try {
        var list = JSON.parse(read(RECENT_STORE, '[]'));
        return Array.isArray(list) ? list.filter(function (n) { return typeof n === 'string'; }) : [];
      } catch (e) {
        return [];
      }
    },
  };

  function GraphQLError(message, codes) {
    this.name = 'GraphQLError';
    this.message = message;
    this.codes = codes || [];
  }
  GraphQLError.prototype = Object.create(Error.prototype);

  // One operation; resolves to `data`, rejects with the API's messages and codes.
  function gql(document, variables) {
    var headers = { 'content-type': 'application/json', accept: 'application/json' };
    var key = settings.apiKey();
    if (key) headers.authorization = 'Bearer ' + key;
    return fetch(GRAPHQL_URL, {
      method: 'POST',
      headers: headers,
      body: JSON.stringify({ query: document, variables: variables || {} }),
      credentials: 'same-origin',
    }).then(function (response) {
      if (response.status === 401 || response.status === 403) {
        throw new GraphQLError('The API refused the request (' + response.status +
          '): set an API key in Settings.', ['UNAUTHENTICATED']);
      }
      return response.json().then(function (body) {
        if (body.errors && body.errors.length) {
          var codes = body.errors.map(function (e) { return (e.extensions || {}).code; });
          var text = body.errors.map(function (e) { return e.message; }).join('; ');
          throw new GraphQLError(text, codes);
        }
        return body.data;
      });
    });
  }

  var statusLine = null;
  function status(text, isError) {
    statusLine = statusLine || document.getElementById('status');
    statusLine.textContent = text || '';
    statusLine.className = isError ? 'error' : '';
  }

  function fail(error) {
    status(String(error && error.message ? error.message : error), true);
  }

  function when(iso) {
    if (!iso) return '—';
    return iso.replace('T', ' ').replace(/\.\d+/, '').replace('+00:00', ' UTC');
  }

  function number(value, digits) {
    return typeof value === 'number' ? value.toFixed(digits === undefined ? 3 : digits) : '—';
  }

  function thoughtLink(id, label) {
    return h('a.thought-link', { href: '#/thought/' + encodeURIComponent(id), 'data-id': id, text: label || id });
  }

  // A table from rows of cells; header names first.
  function table(headers, rows, className) {
    return h('table' + (className ? '.' + className : ''), null,
      h('thead', null, h('tr', null, headers.map(function (name) { return h('th', { text: name }); }))),
      h('tbody', null, rows));
  }

  function fields(pairs) {
    var dl = h('dl.fields');
    pairs.forEach(function (pair) {
      append(dl, h('dt', { text: pair[0] }));
      append(dl, h('dd', { 'data-field': pair[0] }, pair[1] === null || pair[1] === undefined ? '—' : pair[1]));
    });
    return dl;
  }

  window.TGX = {
    h: h,
    append: append,
    settings: settings,
    gql: gql,
    status: status,
    fail: fail,
    when: when,
    number: number,
    thoughtLink: thoughtLink,
    table: table,
    fields: fields,
    views: {},
  };
})();
