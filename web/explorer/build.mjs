// Copies the memory explorer's vendored browser files from node_modules (installed by
// `npm ci` from package-lock.json) into the Python package, and records where each came
// from in manifest.json. Run through scripts/build-explorer; tests/api/test_explorer.py
// checks the manifest against package-lock.json and the shipped files against the manifest.
//
// Cytoscape.js's prebuilt UMD file, copied as published: it sets window.cytoscape.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyAssets } from '../copy_assets.mjs';

const here = dirname(fileURLToPath(import.meta.url));

// shipped name -> [npm package, path inside it]
const FILES = {
  'cytoscape.min.js': ['cytoscape', 'dist/cytoscape.min.js'],
  'LICENSE.cytoscape': ['cytoscape', 'LICENSE'],
};

copyAssets({
  npmDir: here,
  target: join(here, '..', '..', 'app', 'api', 'explorer', 'assets'),
  files: FILES,
  generatedBy: 'scripts/build-explorer',
});
