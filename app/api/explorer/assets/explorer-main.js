// Starts the explorer: the hash router (#/search?q=..., #/thought/<id>, #/contradictions,
// #/topics, #/runs, #/timeline?since=N, #/context?q=...), the namespace picker (with the
// namespaces the API lists as suggestions) and the settings dialog. After each render the
// view element carries data-ready="<view>" (or "error") and data-route, the hash it
// rendered, which the page's tests wait for: a hash set a moment ago may not be rendered yet.
(function () {
  'use strict';
  var TGX = window.TGX;
  var root = document.getElementById('view');
  var rendering = 0;

  function parse(hash) {
    var text = hash.replace(/^#\/?/, '') || 'search';
    var query = '';
    var mark = text.indexOf('?');
    if (mark >= 0) {
      query = text.slice(mark + 1);
      text = text.slice(0, mark);
    }
    var parts = text.split('/');
    var params = {};
    new URLSearchParams(query).forEach(function (value, key) { params[key] = value; });
    if (parts[1]) params.id = decodeURIComponent(parts[1]);
    return { view: parts[0], params: params };
  }

  function render() {
    var hash = window.location.hash;
    var route = parse(hash);
    var view = TGX.views[route.view] ? route.view : 'search';
    var token = (rendering += 1);
    root.textContent = '';
    root.removeAttribute('data-ready');
    root.removeAttribute('data-route');
    document.querySelectorAll('#nav a').forEach(function (a) {
      var active = a.getAttribute('data-view') === view;
      a.classList.toggle('active', active);
      if (active) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    });
    TGX.status('Loading…');
    Promise.resolve()
      .then(function () { return TGX.views[view](route.params, root); })
      .then(function () {
        if (token !== rendering) return;
        TGX.status('');
        root.setAttribute('data-route', hash);
        root.setAttribute('data-ready', view);
      })
      .catch(function (error) {
        if (token !== rendering) return;
        TGX.fail(error);
        root.setAttribute('data-route', hash);
        root.setAttribute('data-ready', 'error');
      });
  }

  // The picker's suggestions: the namespaces used here lately, then those the API lists
  // for the key (written to and readable). Typing any other name stays possible.
  var NAMESPACES = 'query Namespaces { namespaces }';
  var listed = [];
  var listing = 0; // only the newest request's answer counts (the key may have changed)

  function fillNamespaces() {
    var list = document.getElementById('namespaces');
    var recent = TGX.settings.recentNamespaces();
    var names = recent.concat(listed.filter(function (name) { return recent.indexOf(name) < 0; }));
    list.textContent = '';
    names.forEach(function (name) { TGX.append(list, TGX.h('option', { value: name })); });
  }

  // Asks the API for the namespaces; a refusal (no key yet, say) keeps the suggestions as
  // they are. The list's data-loaded ("ok" or "failed") tells the page's tests it settled.
  function loadNamespaces() {
    var list = document.getElementById('namespaces');
    var token = (listing += 1);
    list.removeAttribute('data-loaded');
    return TGX.gql(NAMESPACES)
      .then(function (data) {
        if (token !== listing) return;
        listed = data.namespaces;
        fillNamespaces();
        list.setAttribute('data-loaded', 'ok');
      })
      .catch(function () {
        if (token === listing) list.setAttribute('data-loaded', 'failed');
      });
  }

  var namespace = document.getElementById('namespace');
  namespace.value = TGX.settings.namespace();
  namespace.addEventListener('change', function () {
    if (namespace.value.trim() === TGX.settings.namespace()) return;
    TGX.settings.setNamespace(namespace.value);
    namespace.value = TGX.settings.namespace();
    fillNamespaces();
    render();
  });
  fillNamespaces();
  loadNamespaces();

  var dialog = document.getElementById('settings');
  var keyInput = document.getElementById('api-key');
  document.getElementById('settings-open').addEventListener('click', function () {
    keyInput.value = TGX.settings.apiKey();
    dialog.showModal();
  });
  dialog.addEventListener('close', function () {
    if (dialog.returnValue === 'save') {
      TGX.settings.setApiKey(keyInput.value);
      loadNamespaces(); // another key may read other namespaces
      render();
    }
  });

  window.addEventListener('hashchange', render);
  if (!window.location.hash) window.history.replaceState(null, '', '#/search');
  render();
})();
