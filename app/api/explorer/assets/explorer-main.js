// Starts the explorer: the hash router (#/search?q=..., #/thought/<id>, #/contradictions,
// #/topics, #/runs, #/timeline?since=N, #/context?q=...), the namespace picker and the
// settings dialog. After each render the view element carries data-ready="<view>" (or
// "error"), which the page's tests wait for.
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
    var route = parse(window.location.hash);
    var view = TGX.views[route.view] ? route.view : 'search';
    var token = (rendering += 1);
    root.textContent = '';
    root.removeAttribute('data-ready');
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
        root.setAttribute('data-ready', view);
      })
      .catch(function (error) {
        if (token !== rendering) return;
        TGX.fail(error);
        root.setAttribute('data-ready', 'error');
      });
  }

  function fillNamespaces() {
    var list = document.getElementById('namespaces');
    list.textContent = '';
    TGX.settings.recentNamespaces().forEach(function (name) { TGX.append(list, TGX.h('option', { value: name })); });
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

  var dialog = document.getElementById('settings');
  var keyInput = document.getElementById('api-key');
  document.getElementById('settings-open').addEventListener('click', function () {
    keyInput.value = TGX.settings.apiKey();
    dialog.showModal();
  });
  dialog.addEventListener('close', function () {
    if (dialog.returnValue === 'save') {
      TGX.settings.setApiKey(keyInput.value);
      render();
    }
  });

  window.addEventListener('hashchange', render);
  if (!window.location.hash) window.history.replaceState(null, '', '#/search');
  render();
})();
