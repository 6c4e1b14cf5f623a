// Copies the GraphiQL page's browser files from node_modules (installed by `npm ci` from
// package-lock.json) into the Python package, and records where each came from in
// manifest.json. Run through scripts/build-graphiql; tests/test_graphiql.py checks the
// manifest against package-lock.json and the shipped files against the manifest.
//
// Prebuilt UMD files, copied as published: React and ReactDOM set window.React and
// window.ReactDOM, GraphiQL (which bundles graphql and @graphiql/react) window.GraphiQL,
// and the explorer plugin (which bundles graphiql-explorer) window.GraphiQLPluginExplorer.

import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const target = join(here, '..', '..', 'app', 'graphiql', 'assets');

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

const lock = JSON.parse(readFileSync(join(here, 'package-lock.json'), 'utf8'));
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

// The folder also holds the page's own script: replace only what the last build copied.
mkdirSync(target, { recursive: true });
const manifestPath = join(target, 'manifest.json');
if (existsSync(manifestPath)) {
  for (const name of Object.keys(JSON.parse(readFileSync(manifestPath, 'utf8')).files)) {
    rmSync(join(target, name), { force: true });
  }
}
const packages = {};
const files = {};
for (const [name, [pkg, path]] of Object.entries(FILES)) {
  const installed = JSON.parse(readFileSync(join(here, 'node_modules', pkg, 'package.json'), 'utf8'));
  const locked = lock.packages[`node_modules/${pkg}`];
  if (!locked || locked.version !== installed.version) {
    throw new Error(`${pkg} ${installed.version} is installed, the lock file has ${locked?.version}: run npm ci`);
  }
  packages[pkg] = { version: locked.version, integrity: locked.integrity, license: locked.license };
  const source = join(here, 'node_modules', pkg, path);
  copyFileSync(source, join(target, name));
  files[name] = { package: pkg, path, sha256: sha256(readFileSync(source)) };
}
const manifest = { generatedBy: 'scripts/build-graphiql', packages, files };
writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
console.log(`copied ${Object.keys(files).length} files into ${target}`);
