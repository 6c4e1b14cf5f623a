// Copies the GraphiQL page's browser files from node_modules (installed by `npm ci` from
// package-lock.json) into the Python package, and records where each came from in
// manifest.json. Run through scripts/build-graphiql; tests/api/test_graphiql.py checks the
// manifest against package-lock.json and the shipped files against the manifest.
//
// Prebuilt UMD files, copied as published: React and ReactDOM set window.React and
// window.ReactDOM, GraphiQL (which bundles graphql and @graphiql/react) window.GraphiQL,
// and the explorer plugin (which bundles graphiql-explorer) window.GraphiQLPluginExplorer.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyAssets } from '../copy_assets.mjs';

const here = dirname(fileURLToPath(import.meta.url));

// shipped name -> [npm package, path inside it]
const FILES = {
  'react.production.min.js': ['react', 'umd/react.production.min.js'],
  'react-dom.production.min.js': ['react-dom', 'umd/react-dom.production.min.js'],
  'graphiql.min.js': ['graphiql', 'graphiql.min.js'],
  'graphiql.min.css': ['graphiql', 'graphiql.min.css'],
  'plugin-explorer.umd.js': ['@graphiql/plugin-explorer', 'dist/index.umd.js'],
  'plugin-explorer.css': ['@graphiql/plugin-explorer', 'dist/style.css'],
  'LICENSE.react': ['react', 'LICENSE'],
  'LICENSE.react-dom': ['react-dom', 'LICENSE'],
  'LICENSE.graphiql': ['graphiql', 'LICENSE'],
};

copyAssets({
  npmDir: here,
  target: join(here, '..', '..', 'app', 'api', 'graphiql', 'assets'),
  files: FILES,
  generatedBy: 'scripts/build-graphiql',
});
