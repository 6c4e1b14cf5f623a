// Starts GraphiQL on the page the service renders (app/graphiql/page.html): the globals
// come from the UMD files served beside this one, the example tabs from the page's JSON.
(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('thoughtgraph-graphiql-config').textContent);
  // The page is served at the GraphQL endpoint itself.
  var fetcher = GraphiQL.createFetcher({ url: window.location.pathname });
  var explorer = GraphiQLPluginExplorer.explorerPlugin();
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      plugins: [explorer],
      defaultTabs: config.tabs,
      defaultEditorToolsVisibility: true,
      isHeadersEditorEnabled: true,
      // An API key typed into the Headers editor stays in this tab, not in localStorage.
      shouldPersistHeaders: false,
      inputValueDeprecation: true,
    }),
  );
})();
